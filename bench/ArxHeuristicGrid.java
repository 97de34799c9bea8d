/*
 * ARX's heuristic searches on one dataset, for bench/genetic_arx.py. ARX's public API only.
 * Compiled and run by that script:
 *
 *   javac -cp "$ARX_BUILD_DIR/classpath.txt's classpath" -d bench/.cache/arx-heuristic-grid ArxHeuristicGrid.java
 *   java -cp ... ArxHeuristicGrid data=CSV qis=a,b,c hierarchy.a=CSV ...
 *
 * Loads the CSV (';') and the QIs' hierarchies once (every other column insensitive), prints
 * "READY", then answers each line on stdin with one JSON line:
 *
 *   ALGORITHM K S METRIC STEPS
 *
 * ALGORITHM: flash (ARX's OPTIMAL), genetic (BEST_EFFORT_GENETIC, deterministic: ARX's fixed
 * seed 0xDEADBEEF) or lightning (BEST_EFFORT_BOTTOM_UP). STEPS: the heuristic's check limit
 * (setHeuristicSearchStepLimit, semantics CHECKS); the time limit is lifted so that only checks
 * stop a heuristic. METRIC: discernability | aecs | loss | height | precision | entropy.
 * The answer: found, loss (the optimum's information loss as ARX reports it), node (levels in
 * the order of qis=), checks (ARX's transformations checked), optimum_found (ARX's own claim).
 */

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXConfiguration.AnonymizationAlgorithm;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.metric.Metric;

public class ArxHeuristicGrid {

    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        Map<String, String> opts = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("not key=value: " + arg);
            opts.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        List<String> qis = new ArrayList<>();
        for (String q : opts.get("qis").split(",")) qis.add(q.trim());
        Data data = Data.create(new File(opts.get("data")), StandardCharsets.UTF_8, ';');
        for (String q : qis) {
            data.getDefinition().setAttributeType(q, Hierarchy.create(opts.get("hierarchy." + q), StandardCharsets.UTF_8, ';'));
        }
        DataHandle handle = data.getHandle();
        for (int c = 0; c < handle.getNumColumns(); c++) {
            String name = handle.getAttributeName(c);
            if (!qis.contains(name)) data.getDefinition().setAttributeType(name, AttributeType.INSENSITIVE_ATTRIBUTE);
        }
        System.out.println("READY " + ARXAnonymizer.VERSION);
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) continue;
            if (line.equals("quit")) break;
            String answer;
            try {
                answer = run(data, qis, line.split("\\s+"));
            } catch (Throwable e) {
                answer = "{\"error\":\"" + e.toString().replace("\\", "\\\\").replace("\"", "'") + "\"}";
            }
            System.out.println(answer);
            System.out.flush();
        }
    }

    private static Metric<?> metric(String name) {
        switch (name) {
            case "discernability": return Metric.createDiscernabilityMetric();
            case "aecs": return Metric.createAECSMetric();
            case "loss": return Metric.createLossMetric();
            case "height": return Metric.createHeightMetric();
            case "precision": return Metric.createPrecisionMetric();
            case "entropy": return Metric.createEntropyMetric();
            default: throw new IllegalArgumentException("unknown metric " + name);
        }
    }

    private static String run(Data data, List<String> qis, String[] words) throws Exception {
        if (words.length != 5) throw new IllegalArgumentException("expected: ALGORITHM K S METRIC STEPS");
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(new KAnonymity(Integer.parseInt(words[1])));
        config.setSuppressionLimit(Double.parseDouble(words[2]));
        config.setQualityModel(metric(words[3]));
        int steps = Integer.parseInt(words[4]);
        switch (words[0]) {
            case "flash": break;
            case "genetic":
                config.setAlgorithm(AnonymizationAlgorithm.BEST_EFFORT_GENETIC);
                config.setGeneticAlgorithmDeterministic(true);
                break;
            case "lightning": config.setAlgorithm(AnonymizationAlgorithm.BEST_EFFORT_BOTTOM_UP); break;
            default: throw new IllegalArgumentException("unknown algorithm " + words[0]);
        }
        if (!words[0].equals("flash")) {
            config.setHeuristicSearchStepLimit(steps);
            config.setHeuristicSearchTimeLimit(Integer.MAX_VALUE);
        }
        long t0 = System.nanoTime();
        ARXResult result = new ARXAnonymizer().anonymize(data, config);
        long t1 = System.nanoTime();
        StringBuilder j = new StringBuilder("{");
        ARXNode best = result.getGlobalOptimum();
        j.append("\"found\":").append(best != null);
        j.append(",\"optimum_found\":").append(result.getOptimumFound());
        j.append(",\"checks\":").append(result.getProcessStatistics().getTransformationsChecked());
        j.append(",\"ms\":").append((t1 - t0) / 1e6);
        if (best != null) {
            StringBuilder node = new StringBuilder("[");
            for (int i = 0; i < qis.size(); i++) node.append(i == 0 ? "" : ",").append(best.getGeneralization(qis.get(i)));
            j.append(",\"node\":").append(node.append("]"));
            j.append(",\"loss\":\"").append(best.getHighestScore().toString()).append('"');
        }
        data.getHandle().release();
        return j.append("}").toString();
    }
}
