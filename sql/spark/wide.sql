CREATE TEMPORARY VIEW `sqlanon_wide` AS
SELECT
  CAST(`h0`.`l0` AS SMALLINT) AS `q0_0`,
  CAST(`h0`.`l1` AS SMALLINT) AS `q0_1`,
  CAST(`h0`.`l2` AS SMALLINT) AS `q0_2`,
  `h0`.`c0` AS `c0_0`,
  `h0`.`c1` AS `c0_1`,
  `h0`.`c2` AS `c0_2`,
  CAST(`h1`.`l0` AS INT) AS `q1_0`,
  CAST(`h1`.`l1` AS SMALLINT) AS `q1_1`,
  CAST(`h1`.`l2` AS SMALLINT) AS `q1_2`,
  CAST(`h1`.`l3` AS SMALLINT) AS `q1_3`,
  `h1`.`c0` AS `c1_0`,
  `h1`.`c1` AS `c1_1`,
  `h1`.`c2` AS `c1_2`,
  `h1`.`c3` AS `c1_3`,
  CAST(`h2`.`l0` AS SMALLINT) AS `q2_0`,
  CAST(`h2`.`l1` AS SMALLINT) AS `q2_1`,
  `h2`.`c0` AS `c2_0`,
  `h2`.`c1` AS `c2_1`,
  `c`.`s0` AS `s0`,
  `c`.`lnx` AS `lnx`,
  `c`.`n` AS `n`
FROM `sqlanon_classes` AS `c`
JOIN `sqlanon_hier_0` AS `h0`
  ON `c`.`q0` = `h0`.`code`
JOIN `sqlanon_hier_1` AS `h1`
  ON `c`.`q1` = `h1`.`code`
JOIN `sqlanon_hier_2` AS `h2`
  ON `c`.`q2` = `h2`.`code`
