SELECT
  "n",
  COUNT(*) AS "classes",
  (
    "n" >= $k
  ) IS TRUE AS "kept"
FROM (
  SELECT
    SUM("c"."n") AS "n"
  FROM "sqlanon_wide" AS "c"
  GROUP BY
    "c"."q0_0",
    "c"."q1_2",
    "c"."q2_1"
) AS "cls"
GROUP BY
  "n"
