WITH "sup" AS (
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
  ) AS "cls"
  WHERE
    NOT (
      "n" >= %(k)s
    )
)
SELECT
  *
FROM (
  SELECT
    0 AS "j",
    "g0" AS "code",
    SUM("n") AS "c"
  FROM "sup"
  GROUP BY
    "g0"
  UNION ALL
  SELECT
    1 AS "j",
    "g1" AS "code",
    SUM("n") AS "c"
  FROM "sup"
  GROUP BY
    "g1"
  UNION ALL
  SELECT
    2 AS "j",
    "g2" AS "code",
    SUM("n") AS "c"
  FROM "sup"
  GROUP BY
    "g2"
) AS "u"
ORDER BY
  "j",
  "code"
