SELECT
  `s`.`rowid` AS `__row`,
  `d0`.`code` AS `q0`,
  `d1`.`code` AS `q1`,
  `d2`.`code` AS `q2`,
  `s`.`diagnosis` AS `p0`
FROM `sqlanon_input` AS `s`
JOIN `sqlanon_label_0` AS `d0`
  ON `d0`.`level` = 0 AND `d0`.`label` = COALESCE(CAST(`s`.`age` AS STRING), '')
JOIN `sqlanon_label_1` AS `d1`
  ON `d1`.`level` = 0
  AND `d1`.`label` = COALESCE(CAST(`s`.`marital-status` AS STRING), '')
JOIN `sqlanon_label_2` AS `d2`
  ON `d2`.`level` = 0
  AND `d2`.`label` = COALESCE(CAST(`s`.`"; drop table x; --` AS STRING), '')
