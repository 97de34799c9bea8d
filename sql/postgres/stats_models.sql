SELECT
  COUNT(*) AS "classes",
  COALESCE(SUM(CASE WHEN "kept" THEN 1 ELSE 0 END), 0) AS "kept_classes",
  COALESCE(SUM(CASE WHEN "kept" THEN 0 ELSE "n" END), 0) AS "suppressed",
  MIN(CASE WHEN "kept" THEN "n" ELSE NULL END) AS "min_kept",
  COALESCE(SUM(CASE WHEN "kept" THEN "n" * "n" ELSE 0 END), 0) AS "dm_kept",
  COALESCE(SUM("n" * "n"), 0) AS "dm_all",
  MIN("n") AS "min_class"
FROM (
  SELECT
    *,
    "n" >= %(k)s
    AND (
      "m1_distinct" >= %(m1_l)s
      AND CAST("m1_top" AS DOUBLE PRECISION) < %(m1_c)s * CAST("m1_tail" AS DOUBLE PRECISION)
    )
    AND "m2_t" <= %(m2_t)s AS "kept"
  FROM (
    SELECT
      *
    FROM (
      SELECT
        "c"."q0_0" AS "g0",
        "c"."q1_2" AS "g1",
        "c"."q2_1" AS "g2",
        SUM("c"."n") AS "n"
      FROM "sqlanon_wide" AS "c"
      GROUP BY
        "c"."q0_0",
        "c"."q1_2",
        "c"."q2_1"
    ) AS "base"
    JOIN (
      SELECT
        "g0",
        "g1",
        "g2",
        MAX("f") AS "m1_top",
        SUM(CASE WHEN "r" >= %(m1_l)s THEN "f" ELSE 0 END) AS "m1_tail",
        COUNT(*) AS "m1_distinct"
      FROM (
        SELECT
          "x".*,
          SUM("x"."f") OVER (PARTITION BY "x"."g0", "x"."g1", "x"."g2") AS "cn",
          ROW_NUMBER() OVER (
            PARTITION BY "x"."g0", "x"."g1", "x"."g2"
            ORDER BY "x"."f" DESC NULLS LAST, "x"."v"
          ) AS "r",
          "sv"."q" AS "q"
        FROM (
          SELECT
            "c"."q0_0" AS "g0",
            "c"."q1_2" AS "g1",
            "c"."q2_1" AS "g2",
            "c"."s0" AS "v",
            SUM("c"."n") AS "f"
          FROM "sqlanon_wide" AS "c"
          GROUP BY
            "c"."q0_0",
            "c"."q1_2",
            "c"."q2_1",
            "c"."s0"
        ) AS "x"
        JOIN "sqlanon_sval_0" AS "sv"
          ON "sv"."code" = "x"."v"
      ) AS "h"
      GROUP BY
        "g0",
        "g1",
        "g2"
    ) AS "f0"
      USING ("g0", "g1", "g2")
    JOIN (
      SELECT
        "g0",
        "g1",
        "g2",
        0.5 * (
          SUM(ABS(CAST("f" AS DOUBLE PRECISION) / CAST("cn" AS DOUBLE PRECISION) - "q")) + 1 - SUM("q")
        ) AS "m2_t"
      FROM (
        SELECT
          "x".*,
          SUM("x"."f") OVER (PARTITION BY "x"."g0", "x"."g1", "x"."g2") AS "cn",
          ROW_NUMBER() OVER (
            PARTITION BY "x"."g0", "x"."g1", "x"."g2"
            ORDER BY "x"."f" DESC NULLS LAST, "x"."v"
          ) AS "r",
          "sv"."q" AS "q"
        FROM (
          SELECT
            "c"."q0_0" AS "g0",
            "c"."q1_2" AS "g1",
            "c"."q2_1" AS "g2",
            "c"."s0" AS "v",
            SUM("c"."n") AS "f"
          FROM "sqlanon_wide" AS "c"
          GROUP BY
            "c"."q0_0",
            "c"."q1_2",
            "c"."q2_1",
            "c"."s0"
        ) AS "x"
        JOIN "sqlanon_sval_0" AS "sv"
          ON "sv"."code" = "x"."v"
      ) AS "h"
      GROUP BY
        "g0",
        "g1",
        "g2"
    ) AS "f1"
      USING ("g0", "g1", "g2")
  ) AS "cls"
) AS "f"
