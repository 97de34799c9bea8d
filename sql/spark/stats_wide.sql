SELECT
  COUNT(*) AS `classes`,
  COALESCE(SUM(CASE WHEN `kept` THEN 1 ELSE 0 END), 0) AS `kept_classes`,
  COALESCE(SUM(CASE WHEN `kept` THEN 0 ELSE `n` END), 0) AS `suppressed`,
  MIN(CASE WHEN `kept` THEN `n` ELSE NULL END) AS `min_kept`,
  COALESCE(SUM(CASE WHEN `kept` THEN `n` * `n` ELSE 0 END), 0) AS `dm_kept`,
  COALESCE(SUM(`n` * `n`), 0) AS `dm_all`,
  MIN(`n`) AS `min_class`,
  COALESCE(SUM(CASE WHEN `kept` THEN `n` * `leaves0` ELSE 0 END), 0) AS `leaves0`,
  COALESCE(SUM(CASE WHEN `kept` THEN `n` * `leaves1` ELSE 0 END), 0) AS `leaves1`,
  COALESCE(SUM(CASE WHEN `kept` THEN `n` * `leaves2` ELSE 0 END), 0) AS `leaves2`
FROM (
  SELECT
    *,
    `n` >= :k AS `kept`
  FROM (
    SELECT
      `c`.`q0_0` AS `g0`,
      `c`.`q1_2` AS `g1`,
      `c`.`q2_1` AS `g2`,
      SUM(`c`.`n`) AS `n`,
      MAX(`c`.`c0_0`) AS `leaves0`,
      MAX(`c`.`c1_2`) AS `leaves1`,
      MAX(`c`.`c2_1`) AS `leaves2`
    FROM `sqlanon_wide` AS `c`
    GROUP BY
      `c`.`q0_0`,
      `c`.`q1_2`,
      `c`.`q2_1`
  ) AS `cls`
) AS `f`
