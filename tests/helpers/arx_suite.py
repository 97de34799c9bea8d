"""ARX 3.9.2's JUnit anonymization cases on ADULT, as literals: the 158 parameterized cases of
``src/test/org/deidentifier/arx/test/TestAnonymization*.java`` whose dataset is
``./data/adult.csv`` (the class without its ``TestAnonymization`` prefix and the JUnit index
among all its cases) and the two ``@Test`` methods of ``TestAnonymizationCellSuppression``.

Each case keeps ARX's own expressions, shortened: ``new`` and ``Metric.create`` dropped, ``d``
suffixes dropped, ``RESEARCH_SUBSET`` for ``DataSubset.create(adult.csv, adult_subset.csv)``,
``HIERARCHY_<column>`` for that column's hierarchy file. ``loss`` is ARX's expected value as its
source writes it (``String.valueOf`` of a double), ``levels`` its transformation in ADULT's column
order without the sensitive column (None: ARX expects no solution, or asserts a hash of the
output instead). A class-wide setting (the heuristic algorithm and its step limit, the
t-closeness model ``TestAnonymizationTCloseness.test()`` adds) is folded into each case.
``helpers/arx_names.py`` maps the expressions to a job; ``search/test_arx_suite.py`` runs them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    test: str
    index: int
    suppression: float
    metric: str
    models: tuple[str, ...]
    sensitive: str
    loss: str | None
    levels: tuple[int, ...] | None
    practical: bool = False
    algorithm: str = "OPTIMAL"
    extra: str = ""

    @property
    def id(self) -> str:
        return f"{self.test}-{self.index}"


# one case per line, as ARX lists them
# fmt: off
CASES = [
    Case("BLikeness", 0, 0.5, "LossMetric()", ('BasicBLikeness("occupation", 3)',), "occupation", '0.34883856157237925', (0, 3, 0, 0, 2, 0, 1, 0)),
    Case("BLikeness", 1, 0.0, "LossMetric()", ('EnhancedBLikeness("occupation", 2)',), "occupation", '0.759176305345683', (1, 4, 1, 1, 3, 2, 2, 0)),
    Case("BLikeness", 2, 1.0, "LossMetric()", ('BasicBLikeness("occupation", 1)',), "occupation", '0.6081345989904172', (1, 4, 0, 1, 3, 0, 2, 0)),
    Case("BLikeness", 3, 1.0, "LossMetric()", ('EnhancedBLikeness("occupation", 10)',), "occupation", '0.3419039849540606', (0, 3, 0, 0, 3, 1, 2, 0)),
    Case("BLikeness", 4, 0.4, "LossMetric()", ('BasicBLikeness("occupation", 5)',), "occupation", '0.23350465152356303', (0, 2, 0, 0, 2, 0, 1, 0)),
    Case("BLikeness", 5, 1.0, "LossMetric()", ('EnhancedBLikeness("occupation", 10)',), "occupation", '0.3419039849540606', (0, 3, 0, 0, 3, 1, 2, 0)),
    Case("Combinations", 0, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('DPresence(0.05, 0.15, RESEARCH_SUBSET)',), "occupation", '37223.2491248282', (1, 4, 1, 1, 1, 2, 2, 1)),
    Case("Combinations", 1, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)', 'DPresence(0.05, 0.15, RESEARCH_SUBSET)'), "occupation", '35461.300017243804', (0, 2, 1, 2, 3, 2, 2, 1)),
    Case("Combinations", 2, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)', 'DPresence(0.05, 0.15, RESEARCH_SUBSET)'), "occupation", '42481.619746031596', (1, 4, 1, 1, 3, 2, 2, 1)),
    Case("Combinations", 3, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)'), "occupation", '398400.0741806447', (0, 4, 1, 1, 3, 2, 2, 1)),
    Case("Combinations", 4, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)',), "occupation", '324620.5269918692', (1, 1, 1, 1, 3, 2, 2, 1)),
    Case("Combinations", 5, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)', 'DPresence(0.05, 0.15, RESEARCH_SUBSET)'), "occupation", '42481.619746031596', (1, 4, 1, 1, 3, 2, 2, 1)),
    Case("Combinations", 6, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)',), "occupation", '398400.0741806447', (0, 4, 1, 1, 3, 2, 2, 1)),
    Case("Combinations", 7, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('RecursiveCLDiversity("occupation", 4.0, 5)', 'DPresence(0.05, 0.15, RESEARCH_SUBSET)'), "occupation", '39177.7411830619', (1, 4, 1, 1, 2, 2, 2, 1)),
    Case("Combinations", 8, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('RecursiveCLDiversity("occupation", 4.0, 5)',), "occupation", '324620.5269918692', (1, 1, 1, 1, 3, 2, 2, 1)),
    Case("Combinations", 45, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('KAnonymity(5)',), "occupation", '180132.40848244698', (0, 0, 1, 1, 2, 2, 2, 0)),
    Case("Combinations", 50, 0.05, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)', 'DPresence(0.05, 0.15, RESEARCH_SUBSET)'), "occupation", '25247.843728345997', (1, 0, 1, 2, 2, 2, 2, 1)),
    Case("Combinations", 51, 0.05, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)', 'DPresence(0.05, 0.15, RESEARCH_SUBSET)'), "occupation", '40089.9423426752', (1, 4, 0, 1, 3, 2, 2, 1)),
    Case("Combinations", 52, 0.05, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)'), "occupation", '367390.5779876774', (1, 4, 0, 0, 3, 1, 2, 1)),
    Case("Combinations", 53, 0.05, "PrecomputedEntropyMetric(0.1, true)", ('RecursiveCLDiversity("occupation", 4.0, 5)', 'DPresence(0.05, 0.15, RESEARCH_SUBSET)'), "occupation", '28551.7222913157', (1, 0, 1, 2, 3, 2, 2, 1)),
    Case("Combinations", 54, 0.05, "PrecomputedEntropyMetric(0.1, true)", ('RecursiveCLDiversity("occupation", 4.0, 5)',), "occupation", '198181.4042332967', (1, 0, 1, 1, 2, 2, 2, 0)),
    Case("Combinations", 75, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('KAnonymity(5)', 'DPresence(0.05, 0.15, RESEARCH_SUBSET)'), "occupation", '25949.0068665567', (1, 0, 1, 2, 2, 2, 2, 1)),
    Case("Combinations", 76, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('KAnonymity(5)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)', 'DPresence(0.05, 0.15, RESEARCH_SUBSET)'), "occupation", '40282.23779327559', (1, 4, 0, 1, 3, 2, 2, 1)),
    Case("Combinations", 77, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('KAnonymity(5)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)'), "occupation", '374778.01889889664', (1, 4, 0, 0, 3, 1, 2, 1)),
    Case("Combinations", 78, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('RecursiveCLDiversity("occupation", 4.0, 5)', 'DPresence(0.05, 0.15, RESEARCH_SUBSET)'), "occupation", '28759.669970588497', (1, 0, 1, 2, 3, 2, 2, 1)),
    Case("Combinations", 79, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('RecursiveCLDiversity("occupation", 4.0, 5)',), "occupation", '209764.96161974416', (1, 0, 1, 1, 2, 2, 2, 0)),
    Case("Combinations", 100, 0.05, "PrecomputedEntropyMetric(0.1, true)", ('DPresence(0.05, 0.15, RESEARCH_SUBSET)',), "occupation", '33649.9118226187', (1, 4, 1, 1, 0, 2, 2, 1)),
    Case("Combinations", 101, 0.05, "PrecomputedEntropyMetric(0.1, true)", ('HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)', 'DPresence(0.05, 0.15, RESEARCH_SUBSET)'), "occupation", '40089.9423426752', (1, 4, 0, 1, 3, 2, 2, 1)),
    Case("Combinations", 102, 0.05, "PrecomputedEntropyMetric(0.1, true)", ('HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)',), "occupation", '367390.5779876774', (1, 4, 0, 0, 3, 1, 2, 1)),
    Case("Combinations", 115, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('DPresence(0.05, 0.15, RESEARCH_SUBSET)',), "occupation", '33660.3063277646', (1, 4, 1, 1, 0, 2, 2, 1)),
    Case("Combinations", 116, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)', 'DPresence(0.05, 0.15, RESEARCH_SUBSET)'), "occupation", '40282.23779327559', (1, 4, 0, 1, 3, 2, 2, 1)),
    Case("Combinations", 117, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)',), "occupation", '374778.01889889664', (1, 4, 0, 0, 3, 1, 2, 1)),
    Case("DPresence", 0, 0.0, "AECSMetric()", ('DPresence(0.0, 0.2, RESEARCH_SUBSET)',), "occupation", '52.0', (1, 4, 1, 1, 0, 2, 2, 0)),
    Case("DPresence", 1, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('DPresence(0.0, 0.2, RESEARCH_SUBSET)',), "occupation", '30238.2081484441', (0, 1, 1, 2, 3, 2, 2, 0)),
    Case("DPresence", 2, 0.0, "PrecomputedEntropyMetric(0.1, false)", ('DPresence(0.0, 0.2, RESEARCH_SUBSET)',), "occupation", '30238.2081484441', (0, 1, 1, 2, 3, 2, 2, 0)),
    Case("DPresence", 3, 0.05, "AECSMetric()", ('DPresence(0.0, 0.2, RESEARCH_SUBSET)',), "occupation", '8.02127659574468', (0, 0, 1, 2, 1, 2, 2, 1)),
    Case("DPresence", 4, 0.05, "PrecomputedEntropyMetric(0.1, true)", ('DPresence(0.0, 0.2, RESEARCH_SUBSET)',), "occupation", '19804.2887675027', (1, 0, 1, 1, 2, 2, 2, 0)),
    Case("DPresence", 5, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('DPresence(0.0, 0.2, RESEARCH_SUBSET)',), "occupation", '20747.362350403302', (1, 0, 1, 1, 2, 2, 2, 0)),
    Case("DPresence", 6, 0.0, "AECSMetric()", ('DPresence(0.05, 0.15, RESEARCH_SUBSET)',), "occupation", '150.8', (0, 4, 0, 1, 3, 2, 2, 1)),
    Case("DPresence", 7, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('DPresence(0.05, 0.15, RESEARCH_SUBSET)',), "occupation", '37223.2491248282', (1, 4, 1, 1, 1, 2, 2, 1)),
    Case("DPresence", 8, 0.0, "PrecomputedEntropyMetric(0.1, false)", ('DPresence(0.05, 0.15, RESEARCH_SUBSET)',), "occupation", '37223.2491248282', (1, 4, 1, 1, 1, 2, 2, 1)),
    Case("DPresence", 9, 0.05, "AECSMetric()", ('DPresence(0.05, 0.15, RESEARCH_SUBSET)',), "occupation", '97.29032258064517', (1, 4, 1, 1, 0, 2, 2, 1)),
    Case("DPresence", 10, 0.05, "PrecomputedEntropyMetric(0.1, true)", ('DPresence(0.05, 0.15, RESEARCH_SUBSET)',), "occupation", '33649.9118226187', (1, 4, 1, 1, 0, 2, 2, 1)),
    Case("DPresence", 11, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('DPresence(0.05, 0.15, RESEARCH_SUBSET)',), "occupation", '33660.3063277646', (1, 4, 1, 1, 0, 2, 2, 1)),
    Case("DifferentialPrivacy", 0, 1.0, "LossMetric()", ('EDDifferentialPrivacy(2, 1E-5, DataGeneralizationScheme.create(GeneralizationDegree.LOW_MEDIUM), true)',), "", '0.6820705793543056', (0, 2, 0, 1, 1, 1, 1, 1, 0)),
    Case("DifferentialPrivacy", 1, 1.0, "LossMetric()", ('EDDifferentialPrivacy(1.5, 1E-6, DataGeneralizationScheme.create(GeneralizationDegree.HIGH), true)',), "", '0.8112222411559193', (1, 3, 1, 2, 2, 2, 2, 2, 1)),
    Case("DifferentialPrivacy", 2, 0.0, "LossMetric()", ('EDDifferentialPrivacy(LN2, 1E-7, DataGeneralizationScheme.create(GeneralizationDegree.LOW_MEDIUM), true)',), "", '0.7437618217405468', (0, 2, 0, 1, 1, 1, 1, 1, 0)),
    Case("DifferentialPrivacy", 3, 0.0, "LossMetric()", ('EDDifferentialPrivacy(LN3, 1E-8, DataGeneralizationScheme.create(GeneralizationDegree.MEDIUM), true)',), "", '0.6092780386290699', (1, 2, 1, 1, 2, 1, 1, 1, 1)),
    Case("DifferentialPrivacy", 4, 1.0, "LossMetric()", ('EDDifferentialPrivacy(2, 1E-5, DataGeneralizationScheme.create(GeneralizationDegree.MEDIUM_HIGH), true)',), "", '0.5968589299712612', (1, 2, 1, 1, 2, 1, 1, 1, 1)),
    Case("DifferentialPrivacy", 5, 1.0, "LossMetric()", ('EDDifferentialPrivacy(1.5, 1E-6, DataGeneralizationScheme.create(GeneralizationDegree.LOW_MEDIUM), true)',), "", '0.6856395441402736', (0, 2, 0, 1, 1, 1, 1, 1, 0)),
    Case("DifferentialPrivacy", 18, 1.0, "LossMetric()", ('EDDifferentialPrivacy(0.01, 1E-9, DataGeneralizationScheme.create(GeneralizationDegree.LOW_MEDIUM), true)',), "", '0.9999999999999989', (0, 2, 0, 1, 1, 1, 1, 1, 0)),
    Case("DifferentialPrivacy", 19, 1.0, "LossMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '-387.20969001288375', (1, 4, 0, 2, 2, 1, 1, 2, 0), extra='epsilon=2, delta=1E-5, budget=1, steps=10, SearchStepSemantics.EXPANSIONS'),
    Case("DifferentialPrivacy", 22, 1.0, "LossMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '-364.91072721704967', (0, 3, 1, 0, 2, 1, 1, 2, 0), extra='epsilon=2, delta=1E-5, budget=1, steps=100, SearchStepSemantics.EXPANSIONS'),
    Case("DifferentialPrivacy", 25, 1.0, "PrecisionMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '-347.1666666666667', (0, 4, 0, 1, 1, 1, 2, 1, 0), extra='epsilon=2, delta=1E-5, budget=1, steps=10, SearchStepSemantics.EXPANSIONS'),
    Case("DifferentialPrivacy", 28, 1.0, "PrecisionMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '-349.6703096539162', (0, 4, 0, 0, 2, 2, 1, 2, 0), extra='epsilon=2, delta=1E-5, budget=1, steps=100, SearchStepSemantics.EXPANSIONS'),
    Case("DifferentialPrivacy", 31, 1.0, "EntropyMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '-354.6331995737269', (1, 4, 0, 1, 2, 2, 1, 1, 0), extra='epsilon=2, delta=1E-5, budget=1, steps=10, SearchStepSemantics.EXPANSIONS'),
    Case("DifferentialPrivacy", 34, 1.0, "EntropyMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '-337.4125485059108', (0, 3, 1, 1, 2, 1, 1, 1, 1), extra='epsilon=2, delta=1E-5, budget=1, steps=100, SearchStepSemantics.EXPANSIONS'),
    Case("DifferentialPrivacy", 37, 1.0, "AECSMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '46.0', (0, 4, 0, 0, 2, 2, 2, 1, 1), extra='epsilon=2, delta=1E-5, budget=1, steps=10, SearchStepSemantics.EXPANSIONS'),
    Case("DifferentialPrivacy", 40, 1.0, "AECSMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '88.0', (1, 3, 1, 1, 1, 2, 2, 0, 1), extra='epsilon=2, delta=1E-5, budget=1, steps=100, SearchStepSemantics.EXPANSIONS'),
    Case("DifferentialPrivacy", 43, 1.0, "DiscernabilityMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '-189.1673041207017', (1, 3, 1, 2, 3, 2, 2, 0, 1), extra='epsilon=2, delta=1E-5, budget=1, steps=10, SearchStepSemantics.EXPANSIONS'),
    Case("DifferentialPrivacy", 46, 1.0, "DiscernabilityMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '-184.58604046896227', (0, 4, 1, 1, 3, 2, 2, 0, 1), extra='epsilon=2, delta=1E-5, budget=1, steps=100, SearchStepSemantics.EXPANSIONS'),
    Case("DifferentialPrivacy", 49, 1.0, "ClassificationMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '231.53225806451613', (1, 4, 1, 2, 3, 2, 2, 2, 0), extra='epsilon=2, delta=1E-5, budget=1, steps=1, SearchStepSemantics.EXPANSIONS; response={"salary-class"}'),
    Case("DifferentialPrivacy", 52, 1.0, "ClassificationMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '246.40322580645162', (0, 4, 1, 1, 2, 2, 2, 2, 0), extra='epsilon=2, delta=1E-5, budget=1, steps=10, SearchStepSemantics.EXPANSIONS; response={"salary-class"}'),
    Case("DifferentialPrivacy", 55, 1.0, "ClassificationMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '246.56451612903226', (1, 4, 1, 1, 1, 2, 2, 2, 0), extra='epsilon=2, delta=1E-5, budget=1, steps=100, SearchStepSemantics.EXPANSIONS; response={"salary-class"}'),
    Case("DifferentialPrivacy", 58, 1.0, "ClassificationMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '115.76612903225806', (1, 4, 1, 2, 3, 2, 2, 2, 0), extra='epsilon=2, delta=1E-5, budget=1, steps=1, SearchStepSemantics.EXPANSIONS; response={"occupation", "salary-class"}'),
    Case("DifferentialPrivacy", 61, 1.0, "ClassificationMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '152.8508064516129', (1, 4, 1, 1, 3, 2, 1, 1, 0), extra='epsilon=2, delta=1E-5, budget=1, steps=10, SearchStepSemantics.EXPANSIONS; response={"occupation", "salary-class"}'),
    Case("DifferentialPrivacy", 64, 1.0, "ClassificationMetric()", ('EDDifferentialPrivacy(2, 1E-5, null, true)',), "", '153.91935483870967', (0, 4, 1, 2, 2, 2, 2, 0, 0), extra='epsilon=2, delta=1E-5, budget=1, steps=100, SearchStepSemantics.EXPANSIONS; response={"occupation", "salary-class"}'),
    Case("EntropyLDiversity", 0, 0.04, "PrecomputedEntropyMetric(0.1, false)", ('EntropyLDiversity("occupation", 5, GRASSBERGER)',), "occupation", '216092.124036387', (1, 0, 1, 0, 3, 2, 2, 0)),
    Case("EntropyLDiversity", 1, 0.04, "PrecomputedEntropyMetric(0.1, false)", ('EntropyLDiversity("occupation", 100, SHANNON)',), "occupation", '0.0d', None),
    Case("EntropyLDiversity", 2, 0.0, "PrecomputedEntropyMetric(0.1, false)", ('EntropyLDiversity("occupation", 5, GRASSBERGER)',), "occupation", '324620.5269918692', (1, 1, 1, 1, 3, 2, 2, 1)),
    Case("EntropyLDiversity", 3, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('EntropyLDiversity("occupation", 3, GRASSBERGER)',), "occupation", '180347.4325366015', (0, 0, 1, 1, 2, 2, 2, 0)),
    Case("EntropyLDiversity", 4, 0.04, "PrecomputedEntropyMetric(0.1, false)", ('EntropyLDiversity("occupation", 5, SHANNON)',), "occupation", '228878.2039109517', (1, 0, 1, 1, 2, 2, 2, 1), practical=True),
    Case("EntropyLDiversity", 5, 0.1, "PrecomputedEntropyMetric(0.1, false)", ('EntropyLDiversity("occupation", 100, GRASSBERGER)',), "occupation", '0.0d', None, practical=True),
    Case("Genetic", 0, 1.0, "LossMetric()", ('KAnonymity(5)',), "", '0.22041192847984292', (0, 3, 0, 0, 2, 1, 1, 1, 0), algorithm="BEST_EFFORT_GENETIC", extra='steps=1000'),
    Case("Genetic", 1, 0.04, "PrecomputedEntropyMetric(0.1)", ('KAnonymity(100)',), "", '383803.4034066361', (1, 1, 1, 1, 3, 2, 2, 1, 1), algorithm="BEST_EFFORT_GENETIC", extra='steps=1000'),
    Case("Genetic", 2, 1.0, "LossMetric(0.1)", ('KAnonymity(5)',), "", '0.09257312971977383', (0, 3, 0, 0, 0, 0, 0, 0, 0), algorithm="BEST_EFFORT_GENETIC", extra='steps=1000'),
    Case("Genetic", 3, 1.0, "PrecomputedEntropyMetric(0.1, false)", ('KAnonymity(100)',), "", '359649.67365904135', (1, 0, 1, 1, 3, 2, 2, 2, 0), algorithm="BEST_EFFORT_GENETIC", extra='steps=1000'),
    Case("Genetic", 4, 0.04, "LossMetric()", ('KAnonymity(5)',), "", '0.26611081915757495', (0, 3, 0, 1, 1, 1, 1, 2, 0), algorithm="BEST_EFFORT_GENETIC", extra='steps=1000'),
    Case("Genetic", 5, 1.0, "PrecomputedEntropyMetric(0.1, false)", ('KAnonymity(100)',), "", '359649.67365904135', (1, 0, 1, 1, 3, 2, 2, 2, 0), algorithm="BEST_EFFORT_GENETIC", extra='steps=1000'),
    Case("Heuristic", 0, 1.0, "LossMetric()", ('KAnonymity(5)',), "", '0.22041192847984292', (0, 3, 0, 0, 2, 1, 1, 1, 0), algorithm="BEST_EFFORT_BOTTOM_UP", extra='steps=1000'),
    Case("Heuristic", 1, 0.04, "PrecomputedEntropyMetric(0.1)", ('KAnonymity(100)',), "", '400196.319223464', (1, 1, 1, 1, 2, 2, 2, 2, 1), algorithm="BEST_EFFORT_BOTTOM_UP", extra='steps=1000'),
    Case("Heuristic", 2, 1.0, "LossMetric(0.1)", ('KAnonymity(5)',), "", '0.09257312971977383', (0, 3, 0, 0, 0, 0, 0, 0, 0), algorithm="BEST_EFFORT_BOTTOM_UP", extra='steps=1000'),
    Case("Heuristic", 3, 1.0, "PrecomputedEntropyMetric(0.1, false)", ('KAnonymity(100)',), "", '377248.23689620313', (0, 1, 1, 1, 2, 2, 2, 2, 0), algorithm="BEST_EFFORT_BOTTOM_UP", extra='steps=1000'),
    Case("Heuristic", 4, 0.04, "LossMetric()", ('KAnonymity(5)',), "", '0.26611081915757495', (0, 3, 0, 1, 1, 1, 1, 2, 0), practical=True, algorithm="BEST_EFFORT_BOTTOM_UP", extra='steps=1000'),
    Case("Heuristic", 5, 1.0, "PrecomputedEntropyMetric(0.1, false)", ('KAnonymity(100)',), "", '377248.23689620313', (0, 1, 1, 1, 2, 2, 2, 2, 0), practical=True, algorithm="BEST_EFFORT_BOTTOM_UP", extra='steps=1000'),
    Case("HeuristicTopDown", 0, 1.0, "LossMetric()", ('KAnonymity(5)',), "", '0.22041192847984292', (0, 3, 0, 0, 2, 1, 1, 1, 0), algorithm="BEST_EFFORT_TOP_DOWN", extra='steps=1000'),
    Case("HeuristicTopDown", 1, 0.04, "PrecomputedEntropyMetric(0.1)", ('KAnonymity(100)',), "", '413894.76146080694', (1, 3, 1, 2, 3, 2, 2, 0, 1), algorithm="BEST_EFFORT_TOP_DOWN", extra='steps=1000'),
    Case("HeuristicTopDown", 2, 1.0, "LossMetric(0.1)", ('KAnonymity(5)',), "", '0.09257312971977383', (0, 3, 0, 0, 0, 0, 0, 0, 0), algorithm="BEST_EFFORT_TOP_DOWN", extra='steps=1000'),
    Case("HeuristicTopDown", 3, 1.0, "PrecomputedEntropyMetric(0.1, false)", ('KAnonymity(100)',), "", '372601.7108854912', (1, 1, 1, 2, 3, 2, 2, 0, 1), algorithm="BEST_EFFORT_TOP_DOWN", extra='steps=1000'),
    Case("HeuristicTopDown", 4, 0.04, "LossMetric()", ('KAnonymity(5)',), "", '0.26611081915757495', (0, 3, 0, 1, 1, 1, 1, 2, 0), algorithm="BEST_EFFORT_TOP_DOWN", extra='steps=1000'),
    Case("HeuristicTopDown", 5, 1.0, "PrecomputedEntropyMetric(0.1, false)", ('KAnonymity(100)',), "", '372601.7108854912', (1, 1, 1, 2, 3, 2, 2, 0, 1), algorithm="BEST_EFFORT_TOP_DOWN", extra='steps=1000'),
    Case("KAnonymity", 0, 0.04, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)',), "", '255559.85455731067', (1, 0, 1, 1, 3, 2, 2, 0, 1)),
    Case("KAnonymity", 1, 0.04, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(100)',), "", '379417.3460570988', (1, 1, 1, 1, 3, 2, 2, 1, 1)),
    Case("KAnonymity", 2, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)',), "", '407289.5388925293', (1, 2, 1, 1, 3, 2, 2, 1, 1)),
    Case("KAnonymity", 3, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(100)',), "", '453196.8932458743', (0, 4, 1, 1, 3, 2, 2, 1, 1)),
    Case("KAnonymity", 4, 0.04, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)',), "", '255559.85455731067', (1, 0, 1, 1, 3, 2, 2, 0, 1), practical=True),
    Case("KAnonymity", 5, 0.04, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(100)',), "", '379417.3460570988', (1, 1, 1, 1, 3, 2, 2, 1, 1), practical=True),
    Case("KMap", 0, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('KMap(3, 0.01, USA, ZERO_TRUNCATED_POISSON)',), "occupation", '130804.5332092598', (0, 0, 1, 1, 0, 2, 2, 0)),
    Case("KMap", 1, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('KMap(1000, 0.01, USA, ZERO_TRUNCATED_POISSON)',), "occupation", '151894.1394841501', (0, 0, 1, 1, 1, 2, 1, 0)),
    Case("KMap", 2, 0.0, "AECSMetric()", ('KMap(5, RESEARCH_SUBSET)',), "occupation", '45.014925373134325', (1, 0, 1, 2, 3, 2, 2, 1)),
    Case("KMap", 3, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('KMap(3, RESEARCH_SUBSET)',), "occupation", '23387.494246375998', (0, 0, 1, 2, 3, 2, 2, 0)),
    Case("KMap", 4, 0.0, "PrecomputedEntropyMetric(0.1, false)", ('KMap(5, RESEARCH_SUBSET)',), "occupation", '28551.7222913157', (1, 0, 1, 2, 3, 2, 2, 1)),
    Case("KMap", 5, 0.05, "AECSMetric()", ('KMap(20, RESEARCH_SUBSET)',), "occupation", '11.424242424242424', (1, 0, 1, 1, 3, 2, 1, 0)),
    Case("KMap", 6, 0.05, "PrecomputedEntropyMetric(0.1, true)", ('KMap(7, RESEARCH_SUBSET)',), "occupation", '17075.7181747451', (0, 0, 1, 1, 2, 2, 2, 0)),
    Case("KMap", 7, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('KMap(3, RESEARCH_SUBSET)',), "occupation", '15121.633326877098', (0, 0, 1, 1, 1, 2, 1, 0)),
    Case("KMap", 8, 0.0, "AECSMetric()", ('KMap(5, RESEARCH_SUBSET)',), "occupation", '45.014925373134325', (1, 0, 1, 2, 3, 2, 2, 1)),
    Case("KMap", 9, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('KMap(2, RESEARCH_SUBSET)',), "occupation", '23108.1673304724', (1, 0, 1, 1, 3, 2, 2, 0)),
    Case("KMap", 10, 0.0, "PrecomputedEntropyMetric(0.1, false)", ('KMap(10, RESEARCH_SUBSET)',), "occupation", '30238.2081484441', (0, 1, 1, 2, 3, 2, 2, 0)),
    Case("KMap", 11, 0.05, "AECSMetric()", ('KMap(10, RESEARCH_SUBSET)',), "occupation", '7.215311004784689', (0, 0, 1, 1, 3, 2, 1, 0)),
    Case("KMap", 12, 0.05, "PrecomputedEntropyMetric(0.1, true)", ('KMap(5, RESEARCH_SUBSET)',), "occupation", '17053.8743069776', (0, 0, 1, 0, 2, 2, 2, 1)),
    Case("KMap", 13, 0.05, "PrecomputedEntropyMetric(0.1, false)", ('KMap(3, RESEARCH_SUBSET)',), "occupation", '15121.633326877098', (0, 0, 1, 1, 1, 2, 1, 0)),
    Case("LDiversity", 0, 0.04, "PrecomputedEntropyMetric(0.1, false)", ('EntropyLDiversity("occupation", 5)',), "occupation", '228878.2039109517', (1, 0, 1, 1, 2, 2, 2, 1)),
    Case("LDiversity", 1, 0.04, "PrecomputedEntropyMetric(0.1, false)", ('EntropyLDiversity("occupation", 100)',), "occupation", '0.0d', None),
    Case("LDiversity", 2, 0.0, "PrecomputedEntropyMetric(0.1, false)", ('EntropyLDiversity("occupation", 5)',), "occupation", '324620.5269918692', (1, 1, 1, 1, 3, 2, 2, 1)),
    Case("LDiversity", 3, 0.0, "PrecomputedEntropyMetric(0.1, false)", ('EntropyLDiversity("occupation", 100)',), "occupation", '0.0d', None),
    Case("LDiversity", 4, 0.04, "PrecomputedEntropyMetric(0.1, false)", ('EntropyLDiversity("occupation", 5)',), "occupation", '228878.2039109517', (1, 0, 1, 1, 2, 2, 2, 1), practical=True),
    Case("LDiversity", 5, 0.04, "PrecomputedEntropyMetric(0.1, false)", ('EntropyLDiversity("occupation", 100)',), "occupation", '0.0d', None, practical=True),
    Case("LocalRecoding", 0, 1.0, "LossMetric(0.05)", ('EntropyLDiversity("occupation", 5)',), "occupation", None, None, extra='optimizeIterative(0.05, 100, 0.05); hash=-998962150'),
    Case("LocalRecoding", 3, 1.0, "LossMetric(0.05)", ('EqualDistanceTCloseness("occupation", 0.2)', 'KAnonymity(5)'), "occupation", None, None, extra='optimizeIterative(0.05, 100, 0.05); hash=464405537'),
    Case("LocalRecoding", 4, 1.0, "LossMetric(0.05)", ('EqualDistanceTCloseness("occupation", 0.2)', 'KAnonymity(100)'), "occupation", None, None, extra='optimizeIterative(0.05, 100, 0.05); hash=-1306447515'),
    Case("LocalRecoding", 5, 1.0, "LossMetric(0.05)", ('KAnonymity(100)',), "occupation", None, None, extra='optimizeIterative(0.05, 100, 0.05); hash=484469846'),
    Case("LocalRecoding", 6, 1.0, "LossMetric(0.05)", ('KAnonymity(5)',), "occupation", None, None, extra='optimizeIterative(0.05, 100, 0.05); hash=-1231665634'),
    Case("LocalRecoding", 7, 1.0, "LossMetric(0.05)", ('KMap(3, 0.01, USA, ZERO_TRUNCATED_POISSON)',), "occupation", None, None, extra='optimizeIterative(0.05, 100, 0.05); hash=-715168499'),
    Case("LocalRecoding", 8, 1.0, "LossMetric(0.05)", ('KMap(1000, 0.01, USA, ZERO_TRUNCATED_POISSON)',), "occupation", None, None, extra='optimizeIterative(0.05, 100, 0.05); hash=2130163653'),
    Case("OrderedDistanceTCloseness", 0, 0.04, "DiscernabilityMetric(true)", ('OrderedDistanceTCloseness("occupation", 0.2)', 'KAnonymity(5)'), "occupation", '2712340.0', (0, 0, 1, 1, 2, 2, 2, 0)),
    Case("OrderedDistanceTCloseness", 1, 0.04, "DiscernabilityMetric(true)", ('OrderedDistanceTCloseness("occupation", 0.2)', 'KAnonymity(100)'), "occupation", '1.9937246E7', (1, 0, 1, 2, 3, 2, 2, 1)),
    Case("OrderedDistanceTCloseness", 2, 0.0, "DiscernabilityMetric(true)", ('OrderedDistanceTCloseness("occupation", 0.1)', 'KAnonymity(5)'), "occupation", '9.786802E7', (1, 1, 1, 2, 3, 2, 2, 1)),
    Case("OrderedDistanceTCloseness", 3, 0.0, "DiscernabilityMetric(true)", ('OrderedDistanceTCloseness("occupation", 0.2)', 'KAnonymity(100)'), "occupation", '1.6231213E8', (1, 4, 1, 1, 1, 2, 2, 1)),
    Case("OrderedDistanceTCloseness", 4, 0.04, "DiscernabilityMetric(true)", ('OrderedDistanceTCloseness("occupation", 0.05)', 'KAnonymity(5)'), "occupation", '2.01413138E8', (1, 4, 1, 0, 3, 2, 2, 0), practical=True),
    Case("OrderedDistanceTCloseness", 5, 0.04, "DiscernabilityMetric(true)", ('OrderedDistanceTCloseness("occupation", 0.2)', 'KAnonymity(100)'), "occupation", '1.9937246E7', (1, 0, 1, 2, 3, 2, 2, 1), practical=True),
    Case("Profitability", 0, 0.04, "PublisherPayoutMetric(false)", ('ProfitabilityJournalistNoAttack(RESEARCH_SUBSET)',), "occupation", '2974380.2122727702', (1, 3, 1, 1, 3, 2, 1, 1), extra='cost_benefit=getConfig1()'),
    Case("Profitability", 1, 0.04, "LossMetric()", ('ProfitabilityJournalist(RESEARCH_SUBSET)',), "occupation", '0.20171471140567654', (0, 4, 0, 0, 2, 1, 0, 0), extra='cost_benefit=getConfig2()'),
    Case("Profitability", 2, 0.0, "PrecomputedEntropyMetric(0.1, false)", ('ProfitabilityProsecutor()',), "occupation", '0.0', (0, 0, 0, 0, 0, 0, 0, 0), extra='cost_benefit=getConfig1()'),
    Case("Profitability", 3, 1.0, "PublisherPayoutMetric(false)", ('ProfitabilityJournalistNoAttack(RESEARCH_SUBSET)',), "occupation", '289703.2817537615', (0, 1, 1, 2, 3, 2, 1, 1), extra='cost_benefit=getConfig3()'),
    Case("Profitability", 4, 0.04, "PublisherPayoutMetric(false)", ('ProfitabilityJournalistNoAttack(RESEARCH_SUBSET)',), "occupation", '2095548.2581994554', (1, 3, 0, 1, 3, 0, 0, 1), practical=True, extra='cost_benefit=getConfig2()'),
    Case("Profitability", 5, 0.04, "EntropyBasedInformationLossMetric()", ('ProfitabilityJournalist(RESEARCH_SUBSET)',), "occupation", '1982.8859574224414', (1, 3, 1, 0, 3, 1, 1, 0), practical=True, extra='cost_benefit=getConfig4()'),
    Case("RiskBased", 0, 0.04, "PrecomputedEntropyMetric(0.1)", ('AverageReidentificationRisk(0.01)',), "", '314637.8461904862', (1, 0, 1, 1, 3, 2, 2, 1, 1)),
    Case("RiskBased", 1, 0.04, "PrecomputedLossMetric(0.1)", ('SampleUniqueness(0.01)',), "", '0.1606952725863784', (0, 3, 0, 0, 1, 1, 1, 1, 0)),
    Case("RiskBased", 2, 0.04, "PrecomputedEntropyMetric(0.1)", ('getPopulationUniqueness(0.0001, DANKAR)',), "", '144298.1603344462', (0, 0, 1, 1, 1, 2, 1, 0, 0)),
    Case("RiskBased", 3, 0.04, "PrecomputedLossMetric(0.1)", ('getPopulationUniqueness(0.0001, ZAYATZ)',), "", '0.16078200456326086', (0, 3, 0, 0, 1, 1, 1, 1, 0)),
    Case("RiskBased", 4, 0.04, "PrecomputedEntropyMetric(0.1)", ('getPopulationUniqueness(0.0001, PITMAN)',), "", '144298.1603344462', (0, 0, 1, 1, 1, 2, 1, 0, 0)),
    Case("RiskBased", 5, 0.04, "PrecomputedLossMetric(0.1)", ('getPopulationUniqueness(0.0001, SNB)',), "", '0.17599055898432758', (0, 3, 0, 0, 2, 1, 1, 1, 0)),
    Case("Subset", 0, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)', 'Inclusion(getSubset(20000))'), "occupation", '178437.4164900378', (1, 4, 1, 1, 3, 2, 2, 1)),
    Case("Subset", 1, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)', 'Inclusion(getSubset(10000))'), "occupation", '70774.7774633781', (0, 4, 1, 1, 2, 2, 2, 0)),
    Case("Subset", 2, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)', 'Inclusion(getSubset(30000))'), "occupation", '250816.4033099704', (0, 4, 1, 1, 3, 2, 2, 1)),
    Case("Subset", 3, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('RecursiveCLDiversity("occupation", 4.0, 5)', 'Inclusion(getSubset(9000))'), "occupation", '65996.221545847', (1, 2, 1, 1, 3, 2, 2, 1)),
    Case("TCloseness", 0, 0.04, "DiscernabilityMetric(true)", ('EqualDistanceTCloseness("occupation", 0.2)', 'KAnonymity(5)'), "occupation", '3.11880088E8', (1, 4, 1, 0, 3, 2, 2, 1)),
    Case("TCloseness", 1, 0.04, "DiscernabilityMetric(true)", ('EqualDistanceTCloseness("occupation", 0.2)', 'KAnonymity(100)'), "occupation", '3.11880088E8', (1, 4, 1, 0, 3, 2, 2, 1)),
    Case("TCloseness", 2, 0.04, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)'), "occupation", '377622.78458729305', (1, 4, 0, 0, 3, 2, 2, 1)),
    Case("TCloseness", 3, 0.04, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(100)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)'), "occupation", '390765.61326019815', (1, 4, 1, 0, 3, 1, 2, 1)),
    Case("TCloseness", 4, 0.0, "DiscernabilityMetric(true)", ('EqualDistanceTCloseness("occupation", 0.2)', 'KAnonymity(5)'), "occupation", '4.56853172E8', (1, 4, 1, 1, 3, 2, 2, 1)),
    Case("TCloseness", 5, 0.0, "DiscernabilityMetric(true)", ('EqualDistanceTCloseness("occupation", 0.2)', 'KAnonymity(100)'), "occupation", '4.56853172E8', (1, 4, 1, 1, 3, 2, 2, 1)),
    Case("TCloseness", 6, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)'), "occupation", '398400.0741806447', (0, 4, 1, 1, 3, 2, 2, 1)),
    Case("TCloseness", 7, 0.0, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(100)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)'), "occupation", '398400.0741806447', (0, 4, 1, 1, 3, 2, 2, 1)),
    Case("TCloseness", 8, 0.04, "DiscernabilityMetric(true)", ('EqualDistanceTCloseness("occupation", 0.2)', 'KAnonymity(5)'), "occupation", '3.11880088E8', (1, 4, 1, 0, 3, 2, 2, 1), practical=True),
    Case("TCloseness", 9, 0.04, "DiscernabilityMetric(true)", ('EqualDistanceTCloseness("occupation", 0.2)', 'KAnonymity(100)'), "occupation", '3.11880088E8', (1, 4, 1, 0, 3, 2, 2, 1), practical=True),
    Case("TCloseness", 10, 0.04, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(5)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)'), "occupation", '390765.61326019815', (1, 4, 1, 0, 3, 1, 2, 1), practical=True),
    Case("TCloseness", 11, 0.04, "PrecomputedEntropyMetric(0.1, true)", ('KAnonymity(100)', 'HierarchicalDistanceTCloseness("occupation", 0.2, HIERARCHY_occupation)'), "occupation", '390765.61326019815', (1, 4, 1, 0, 3, 1, 2, 1), practical=True),
    # not parameterized: two @Test methods, each anonymizing ADULT several times in a row (one
    # scenario after the other: k from the highest risk, AverageReidentificationRisk, records at
    # risk, on a few QIs each) with LossMetric(0) and s = 0.99, then optimizeIterativeFast (cell
    # suppression), and checking the output's risks: four fixed scenario lists, and 100 drawn
    # from java.util.Random(42)
    Case("CellSuppression", 0, 0.99, "LossMetric(0)", ("KAnonymity(highest risk)", "AverageReidentificationRisk(average)"), "", None, None, extra="testStatic; optimizeIterativeFast"),
    Case("CellSuppression", 1, 0.99, "LossMetric(0)", ("KAnonymity(highest risk)", "AverageReidentificationRisk(average)"), "", None, None, extra="testRandomized; optimizeIterativeFast"),
]
# fmt: on
