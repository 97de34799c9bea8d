CREATE TEMPORARY TABLE "sqlanon_snap_2" AS
SELECT
  "c"."q0_1" AS "q0_1",
  "c"."q1_2" AS "q1_2",
  "c"."q2_1" AS "q2_1",
  MAX("c"."q0_2") AS "q0_2",
  MAX("c"."q1_3") AS "q1_3",
  SUM("c"."n") AS "n"
FROM "sqlanon_snap_1" AS "c"
GROUP BY
  "c"."q0_1",
  "c"."q1_2",
  "c"."q2_1"
