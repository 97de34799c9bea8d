"""The aggregate functions of loss, entropy and precision on ADULT (nine QIs, k-anonymity,
Flash) against ARX 3.9.2 running the same configuration: ``Metric.createLossMetric(0.5, f)``,
``createEntropyMetric(monotonic, 0.5, f)``, ``createPrecisionMetric(monotonic, 0.5, f)`` with
``AggregateFunction`` f, ``KAnonymity(k)`` and the suppression limit, ARX's optimum read from
``getGlobalOptimum()``. Where several nodes share the optimal loss ARX's node is checked
instead: anonymous, with the same loss."""

import pytest

from helpers.arx_grid import assert_arx_optimum

pytestmark = pytest.mark.slow  # 60 searches on ADULT

# (metric, aggregate, k, suppression limit, ARX's loss, ARX's levels in ADULT's column order)
# fmt: off
CASES = [
    ("loss", "sum", 5, 0.04, 2.6353428829000003, (0,3,0,1,1,1,1,2,0,)),
    ("loss", "sum", 100, 0.1, 4.3156878040999995, (0,4,0,2,3,1,1,1,0,)),
    ("loss", "sum", 5, 1.0, 2.0493029087, (0,3,0,0,2,1,1,1,0,)),
    ("loss", "maximum", 5, 0.04, 1.0, (0,3,0,0,3,2,1,1,0,)),
    ("loss", "maximum", 100, 0.1, 1.0, (0,4,0,2,3,1,2,2,0,)),
    ("loss", "maximum", 5, 1.0, 0.3657021315, (0,3,0,0,1,1,1,1,0,)),
    ("loss", "arithmetic-mean", 5, 0.04, 0.29281587587777774, (0,3,0,1,1,1,1,2,0,)),
    ("loss", "arithmetic-mean", 100, 0.1, 0.47952086712222214, (0,4,0,2,3,1,1,1,0,)),
    ("loss", "arithmetic-mean", 5, 1.0, 0.22770032318888891, (0,3,0,0,2,1,1,1,0,)),
    ("loss", "geometric-mean", 5, 0.04, 0.26611081915757495, (0,3,0,1,1,1,1,2,0,)),
    ("loss", "geometric-mean", 100, 0.1, 0.4326126678263389, (0,4,0,2,3,1,1,1,0,)),
    ("loss", "geometric-mean", 5, 1.0, 0.22041192847984292, (0,3,0,0,2,1,1,1,0,)),
    ("entropy", "sum", 5, 0.04, 264971.5825580817, (1,0,1,1,3,2,2,0,1,)),
    ("entropy", "sum", 100, 0.1, 353204.98690739064, (1,0,1,2,3,2,2,1,1,)),
    ("entropy", "sum", 5, 1.0, 249855.10868148197, (0,0,1,1,3,2,2,0,0,)),
    ("entropy", "maximum", 5, 0.04, 55382.4180980347, (1,0,1,2,2,2,2,1,1,)),
    ("entropy", "maximum", 100, 0.1, 73414.7041915732, (1,1,1,2,2,2,2,1,1,)),
    ("entropy", "maximum", 5, 1.0, 45692.6075244908, (1,0,1,1,1,2,2,0,1,)),
    ("entropy", "arithmetic-mean", 5, 0.04, 29441.28695089797, (1,0,1,1,3,2,2,0,1,)),
    ("entropy", "arithmetic-mean", 100, 0.1, 39244.99854526564, (1,0,1,2,3,2,2,1,1,)),
    ("entropy", "arithmetic-mean", 5, 1.0, 27761.67874238689, (0,0,1,1,3,2,2,0,0,)),
    ("entropy", "geometric-mean", 5, 0.04, 1498.2371882825657, (0,4,1,0,3,2,2,2,0,)),
    ("entropy", "geometric-mean", 100, 0.1, 4304.162140665455, (0,4,1,1,3,2,2,1,0,)),
    ("entropy", "geometric-mean", 5, 1.0, 1498.2371882825657, (0,4,1,0,3,2,2,2,0,)),
    ("entropy-monotonic", "sum", 5, 0.04, 255559.85455731067, (1,0,1,1,3,2,2,0,1,)),
    ("entropy-monotonic", "sum", 100, 0.1, 340423.8959423889, (1,0,1,2,3,2,2,1,1,)),
    ("entropy-monotonic", "sum", 5, 1.0, 0.0, (0,0,0,0,0,0,0,0,0,)),
    ("entropy-monotonic", "maximum", 5, 0.04, 54887.1167171445, (1,0,1,2,1,2,2,1,0,)),
    ("entropy-monotonic", "maximum", 100, 0.1, 69060.6724345585, (1,1,1,1,2,2,2,1,1,)),
    ("entropy-monotonic", "maximum", 5, 1.0, 0.0, (0,0,0,0,0,0,0,0,0,)),
    ("entropy-monotonic", "arithmetic-mean", 5, 0.04, 28395.539395256747, (1,0,1,1,3,2,2,0,1,)),
    ("entropy-monotonic", "arithmetic-mean", 100, 0.1, 37824.87732693211, (1,0,1,2,3,2,2,1,1,)),
    ("entropy-monotonic", "arithmetic-mean", 5, 1.0, 0.0, (0,0,0,0,0,0,0,0,0,)),
    ("entropy-monotonic", "geometric-mean", 5, 0.04, 126.29141371751132, (0,4,1,0,3,2,0,0,0,)),
    ("entropy-monotonic", "geometric-mean", 100, 0.1, 456.4429428042643, (0,4,0,2,3,2,2,0,0,)),
    ("entropy-monotonic", "geometric-mean", 5, 1.0, 0.0, (0,0,0,0,0,0,0,0,0,)),
    ("precision", "sum", 5, 0.04, 3.3971995667838115, (0,4,0,0,2,1,0,2,0,)),
    ("precision", "sum", 100, 0.1, 4.840013924806047, (0,4,0,2,3,1,0,2,0,)),
    ("precision", "sum", 5, 1.0, 2.807517184978891, (0,4,0,0,1,0,0,1,0,)),
    ("precision", "maximum", 5, 0.04, 1.0, (0,4,0,2,3,1,2,2,0,)),
    ("precision", "maximum", 100, 0.1, 1.0, (0,4,0,2,3,1,2,2,0,)),
    ("precision", "maximum", 5, 1.0, 0.5516709767256813, (0,2,0,1,1,1,1,1,0,)),
    ("precision", "arithmetic-mean", 5, 0.04, 0.3774666185315347, (0,4,0,0,2,1,0,2,0,)),
    ("precision", "arithmetic-mean", 100, 0.1, 0.5377793249784496, (0,4,0,2,3,1,0,2,0,)),
    ("precision", "arithmetic-mean", 5, 1.0, 0.3119463538865435, (0,4,0,0,1,0,0,1,0,)),
    ("precision", "geometric-mean", 5, 0.04, 0.32273885348394127, (0,4,0,0,2,1,0,2,0,)),
    ("precision", "geometric-mean", 100, 0.1, 0.47440471133077433, (0,4,0,2,3,1,0,2,0,)),
    ("precision", "geometric-mean", 5, 1.0, 0.2814554158058127, (0,4,0,0,1,0,0,2,0,)),
    ("precision-monotonic", "sum", 5, 0.04, 3.1666666666666665, (0,4,0,0,2,1,0,2,0,)),
    ("precision-monotonic", "sum", 100, 0.1, 4.5, (0,4,0,1,3,0,2,2,0,)),
    ("precision-monotonic", "sum", 5, 1.0, 0.0, (0,0,0,0,0,0,0,0,0,)),
    ("precision-monotonic", "maximum", 5, 0.04, 1.0, (0,4,0,0,1,1,1,2,0,)),
    ("precision-monotonic", "maximum", 100, 0.1, 1.0, (0,4,1,1,1,0,2,2,0,)),
    ("precision-monotonic", "maximum", 5, 1.0, 0.0, (0,0,0,0,0,0,0,0,0,)),
    ("precision-monotonic", "arithmetic-mean", 5, 0.04, 0.35185185185185186, (0,4,0,0,2,1,0,2,0,)),
    ("precision-monotonic", "arithmetic-mean", 100, 0.1, 0.49999999999999994, (0,4,0,2,3,0,1,2,0,)),
    ("precision-monotonic", "arithmetic-mean", 5, 1.0, 0.0, (0,0,0,0,0,0,0,0,0,)),
    ("precision-monotonic", "geometric-mean", 5, 0.04, 0.2915496650148839, (0,4,0,0,2,1,0,2,0,)),
    ("precision-monotonic", "geometric-mean", 100, 0.1, 0.42349781425291244, (0,4,0,1,3,0,2,2,0,)),
    ("precision-monotonic", "geometric-mean", 5, 1.0, 0.0, (0,0,0,0,0,0,0,0,0,)),
]
# fmt: on


@pytest.mark.parametrize(
    "metric,aggregate,k,limit,loss,levels", CASES, ids=[f"{c[0]}-{c[1]}-k{c[2]}-s{c[3]}" for c in CASES]
)
def test_arx_optimum_under_the_aggregate(metric_sessions, metric, aggregate, k, limit, loss, levels):
    assert_arx_optimum(
        metric_sessions(metric), loss, levels, k=k, suppression_limit=limit, metric=metric, aggregate=aggregate
    )
