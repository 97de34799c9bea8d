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
      `c`.`q0` AS `g0`,
      `h1`.`l2` AS `g1`,
      `h2`.`l1` AS `g2`,
      SUM(`c`.`n`) AS `n`,
      MAX(1) AS `leaves0`,
      MAX(`h1`.`c2`) AS `leaves1`,
      MAX(`h2`.`c1`) AS `leaves2`
    FROM `sqlanon_classes` AS `c`
    JOIN `sqlanon_hier_1` AS `h1`
      ON `c`.`q1` = `h1`.`code`
    JOIN `sqlanon_hier_2` AS `h2`
      ON `c`.`q2` = `h2`.`code`
    GROUP BY
      `c`.`q0`,
      `h1`.`l2`,
      `h2`.`l1`
  ) AS `cls`
) AS `f`
