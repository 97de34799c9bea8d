CREATE TEMPORARY TABLE "sqlanon_classes" AS
SELECT
  *,
  LN(CAST(SUM("n") OVER (PARTITION BY "q0", "q1", "q2") AS DOUBLE)) AS "lnx"
FROM (
  SELECT
    "q0",
    "q1",
    "q2",
    "s0",
    COUNT(*) AS "n"
  FROM "sqlanon_data"
  GROUP BY
    "q0",
    "q1",
    "q2",
    "s0"
) AS "b"
