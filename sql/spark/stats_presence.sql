SELECT
  COUNT(*) AS `classes`,
  COALESCE(SUM(CASE WHEN `kept` THEN 1 ELSE 0 END), 0) AS `kept_classes`,
  COALESCE(SUM(CASE WHEN `kept` THEN 0 ELSE `n` END), 0) AS `suppressed`,
  MIN(CASE WHEN `kept` THEN `n` ELSE NULL END) AS `min_kept`,
  COALESCE(SUM(CASE WHEN `kept` THEN `n` * `n` ELSE 0 END), 0) AS `dm_kept`,
  COALESCE(SUM(`n` * `n`), 0) AS `dm_all`,
  MIN(`n`) AS `min_class`
FROM (
  SELECT
    *,
    `n` >= :k
    AND (
      CAST(`n` AS DOUBLE) / CAST(`pop` AS DOUBLE) >= :m1_dmin
      AND CAST(`n` AS DOUBLE) / CAST(`pop` AS DOUBLE) <= :m1_dmax
    ) AS `kept`
  FROM (
    SELECT
      *
    FROM (
      SELECT
        `c`.`q0_0` AS `g0`,
        `c`.`q1_2` AS `g1`,
        `c`.`q2_1` AS `g2`,
        SUM(`c`.`n`) AS `n`
      FROM `sqlanon_wide` AS `c`
      GROUP BY
        `c`.`q0_0`,
        `c`.`q1_2`,
        `c`.`q2_1`
    ) AS `base`
    JOIN (
      SELECT
        `c`.`q0_0` AS `g0`,
        `c`.`q1_2` AS `g1`,
        `c`.`q2_1` AS `g2`,
        SUM(`c`.`pop`) AS `pop`
      FROM `sqlanon_wide` AS `c`
      GROUP BY
        `c`.`q0_0`,
        `c`.`q1_2`,
        `c`.`q2_1`
      HAVING
        SUM(`c`.`n`) > 0
    ) AS `f0`
      USING (`g0`, `g1`, `g2`)
  ) AS `cls`
) AS `f`
