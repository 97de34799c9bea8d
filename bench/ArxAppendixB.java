/*
 * ARX (3.9.2, built by ../shared/arx/build.sh into /tmp/arx-build) on ADULT, the eight QIs
 * besides occupation: the checks behind bench/README.md, "Lightning, Appendix B (ADULT)", for
 * the two models ../shared/arx/ArxDriver.java lacks.
 *
 *   javac -cp "$(cat /tmp/arx-build/classpath.txt)" -d /tmp/arx-appendix-b bench/ArxAppendixB.java
 *   java -cp "$(cat /tmp/arx-build/classpath.txt):/tmp/arx-appendix-b" ArxAppendixB ../shared/data/adult uniqueness
 *       -> (0.01)-uniqueness (Dankar, Region.USA): Flash's optimum for aecs/loss x s = 0/0.1
 *   java ... ArxAppendixB ../shared/data/adult ROWS.txt
 *       -> (0.05,0.15)-presence with that research subset: the optimum for aecs/loss x s = 0/0.1
 *   java ... ArxAppendixB ../shared/data/adult ROWS.txt loss 0.0 0,4,1,2,3,2,0,0
 *       -> whether that one node (levels in the order of QIS) is anonymous, and its loss
 *
 * ROWS.txt: one 0-based row number of adult.csv per line (python bench/appendix_b.py --rows FILE).
 */

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.Set;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataSubset;
import org.deidentifier.arx.ARXPopulationModel;
import org.deidentifier.arx.criteria.DPresence;
import org.deidentifier.arx.criteria.PopulationUniqueness;
import org.deidentifier.arx.metric.Metric;

public class ArxAppendixB {

    static final String[] QIS = {"sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"};

    public static void main(String[] args) throws Exception {
        Set<Integer> rows = null;
        if (!args[1].equals("uniqueness")) {
            rows = new HashSet<>();
            for (String line : Files.readAllLines(Paths.get(args[1]))) {
                if (!line.isEmpty()) rows.add(Integer.parseInt(line.trim()));
            }
        }
        if (args.length > 2) {
            System.out.println(run(args[0], rows, args[2], Double.parseDouble(args[3]), args[4].split(",")));
            return;
        }
        for (String metric : new String[] {"aecs", "loss"}) {
            for (double s : new double[] {0d, 0.1d}) System.out.println(run(args[0], rows, metric, s, null));
        }
    }

    /** Flash's optimum, or with levels the one node they name (minimum = maximum generalization);
     *  rows null: (0.01)-uniqueness instead of (0.05,0.15)-presence. */
    static String run(String dir, Set<Integer> rows, String metric, double s, String[] levels) throws Exception {
        Data data = Data.create(dir + "/adult.csv", StandardCharsets.UTF_8, ';');
        for (int i = 0; i < QIS.length; i++) {
            data.getDefinition().setAttributeType(QIS[i], Hierarchy.create(dir + "/adult_hierarchy_" + QIS[i] + ".csv", StandardCharsets.UTF_8, ';'));
            if (levels != null) {
                data.getDefinition().setMinimumGeneralization(QIS[i], Integer.parseInt(levels[i]));
                data.getDefinition().setMaximumGeneralization(QIS[i], Integer.parseInt(levels[i]));
            }
        }
        data.getDefinition().setAttributeType("occupation", AttributeType.INSENSITIVE_ATTRIBUTE);
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(rows == null
            ? new PopulationUniqueness(0.01, ARXPopulationModel.create(ARXPopulationModel.Region.USA))
            : new DPresence(0.05, 0.15, DataSubset.create(data, rows)));
        config.setSuppressionLimit(s);
        config.setQualityModel(metric.equals("aecs") ? Metric.createAECSMetric() : Metric.createLossMetric());
        ARXNode best = new ARXAnonymizer().anonymize(data, config).getGlobalOptimum();
        StringBuilder node = new StringBuilder();
        for (int i = 0; best != null && i < QIS.length; i++) node.append(i == 0 ? "" : ",").append(best.getGeneralization(QIS[i]));
        return metric + " s=" + s + (best == null ? " no anonymous node" : " node=[" + node + "] loss=" + best.getHighestScore());
    }
}
