SELECT
  COUNT(*) AS `classes`,
  COUNT(*) FILTER(WHERE
    (
      `n` >= :k
    )) AS `kept_classes`,
  COALESCE(SUM(`n`) FILTER(WHERE
    NOT (
      (
        `n` >= :k
      ) IS TRUE
    )), 0) AS `suppressed`,
  MIN(`n`) FILTER(WHERE
    (
      `n` >= :k
    )) AS `min_kept`,
  COALESCE(SUM(`n` * `n`) FILTER(WHERE
    (
      `n` >= :k
    )), 0) AS `dm_kept`,
  COALESCE(SUM(`n` * `n`), 0) AS `dm_all`,
  MIN(`n`) AS `min_class`,
  COALESCE(SUM(`n` * `leaves0`) FILTER(WHERE
    (
      `n` >= :k
    )), 0) AS `leaves0`,
  COALESCE(SUM(`n` * `leaves1`) FILTER(WHERE
    (
      `n` >= :k
    )), 0) AS `leaves1`,
  COALESCE(SUM(`n` * `leaves2`) FILTER(WHERE
    (
      `n` >= :k
    )), 0) AS `leaves2`
FROM (
  SELECT
    SUM(`c`.`n`) AS `n`,
    MAX(`c`.`c0_1`) AS `leaves0`,
    MAX(`c`.`c1_2`) AS `leaves1`,
    MAX(`c`.`c2_1`) AS `leaves2`
  FROM `sqlanon_snap_1` AS `c`
  GROUP BY
    `c`.`q0_1`,
    `c`.`q1_2`,
    `c`.`q2_1`
) AS `cls`
