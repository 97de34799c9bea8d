CREATE TEMPORARY TABLE "sqlanon_snap_1" AS
SELECT
  "h0"."l0" AS "q0_0",
  "h1"."l2" AS "q1_2",
  "h2"."l1" AS "q2_1",
  "c"."s0" AS "s0",
  MAX("h0"."l1") AS "q0_1",
  MAX("h0"."l2") AS "q0_2",
  MAX("h0"."c0") AS "c0_0",
  MAX("h0"."c1") AS "c0_1",
  MAX("h0"."c2") AS "c0_2",
  MAX("h1"."l3") AS "q1_3",
  MAX("h1"."c2") AS "c1_2",
  MAX("h1"."c3") AS "c1_3",
  MAX("h2"."c1") AS "c2_1",
  SUM("c"."n") AS "n",
  CAST(SUM("c"."n" * "c"."lnx") AS DOUBLE PRECISION) / SUM("c"."n") AS "lnx"
FROM "sqlanon_classes" AS "c"
JOIN "sqlanon_hier_0" AS "h0"
  ON "c"."q0" = "h0"."code"
JOIN "sqlanon_hier_1" AS "h1"
  ON "c"."q1" = "h1"."code"
JOIN "sqlanon_hier_2" AS "h2"
  ON "c"."q2" = "h2"."code"
GROUP BY
  "h0"."l0",
  "h1"."l2",
  "h2"."l1",
  "c"."s0"
