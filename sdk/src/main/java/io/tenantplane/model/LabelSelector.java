package io.tenantplane.model;

import java.util.List;
import java.util.Map;

/** A Kubernetes label selector ({@code matchLabels} and {@code matchExpressions}). */
public record LabelSelector(Map<String, String> matchLabels, List<Requirement> matchExpressions) {

    public LabelSelector {
        matchLabels = Copies.map(matchLabels);
        matchExpressions = matchExpressions == null ? List.of() : List.copyOf(matchExpressions);
    }

    /** One {@code matchExpressions} entry; operator is In, NotIn, Exists or DoesNotExist. */
    public record Requirement(@Required("set the label key") String key,
                              @Required("set In, NotIn, Exists or DoesNotExist") String operator,
                              List<String> values) {
        public Requirement {
            values = values == null ? List.of() : List.copyOf(values);
        }
    }

    /** True when every label and expression matches (an empty selector matches everything). */
    public boolean matches(Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        for (var e : matchLabels.entrySet()) {
            if (!e.getValue().equals(l.get(e.getKey()))) {
                return false;
            }
        }
        for (Requirement r : matchExpressions) {
            String v = l.get(r.key());
            boolean ok = switch (r.operator() == null ? "" : r.operator()) {
                case "In" -> v != null && r.values().contains(v);
                case "NotIn" -> v == null || !r.values().contains(v);
                case "Exists" -> l.containsKey(r.key());
                case "DoesNotExist" -> !l.containsKey(r.key());
                default -> false;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
