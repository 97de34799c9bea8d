SELECT
  CASE WHEN "o"."__n" >= %(k)s THEN "v0"."label" ELSE %(mask)s END AS "age",
  CASE WHEN "o"."__n" >= %(k)s THEN "v1"."label" ELSE %(mask)s END AS "marital-status",
  CASE WHEN "o"."__n" >= %(k)s THEN "v2"."label" ELSE %(mask)s END AS "select",
  "o"."p0" AS "diagnosis"
FROM (
  SELECT
    *,
    COUNT(*) OVER (PARTITION BY "g0", "g1", "g2") AS "__n"
  FROM (
    SELECT
      "d"."__row",
      "d"."q0" AS "g0",
      "h1"."l2" AS "g1",
      "h2"."l1" AS "g2",
      "d"."p0" AS "p0"
    FROM "sqlanon_data" AS "d"
    JOIN "sqlanon_hier_1" AS "h1"
      ON "d"."q1" = "h1"."code"
    JOIN "sqlanon_hier_2" AS "h2"
      ON "d"."q2" = "h2"."code"
  ) AS "gen"
) AS "o"
JOIN "sqlanon_label_0" AS "v0"
  ON "v0"."level" = 0 AND "v0"."code" = "o"."g0"
JOIN "sqlanon_label_1" AS "v1"
  ON "v1"."level" = 2 AND "v1"."code" = "o"."g1"
JOIN "sqlanon_label_2" AS "v2"
  ON "v2"."level" = 1 AND "v2"."code" = "o"."g2"
ORDER BY
  "o"."__row"
