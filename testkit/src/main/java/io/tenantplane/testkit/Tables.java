package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Server-side printing ({@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io}), which {@code kubectl get}
 * asks for: a Name column, the CRD's {@code additionalPrinterColumns} (simple {@code .a.b} paths), and Age.
 */
final class Tables {
    /** {@code custom}: a CRD printer column, whose missing values are null cells as in the CRD table convertor. */
    private record Column(String name, String type, String format, String description, int priority, String path,
            boolean custom) {
        Column(String name, String type, String format, String description, int priority, String path) {
            this(name, type, format, description, priority, path, false);
        }
    }

    private Tables() {
    }

    static JsonObject table(ResourceType t, List<JsonObject> items, JsonObject listMeta, String includeObject,
            Instant now) {
        List<Column> columns = columns(t);
        JsonArray definitions = new JsonArray();
        for (Column c : columns) {
            definitions.add(Json.object("name", c.name(), "type", c.type(), "format", c.format(),
                    "description", c.description(), "priority", c.priority()));
        }
        JsonArray rows = new JsonArray();
        for (JsonObject o : items) {
            JsonArray cells = new JsonArray();
            for (Column c : columns) {
                cells.add(cell(o, c, now));
            }
            JsonObject row = Json.object("cells", cells);
            if ("Object".equals(includeObject)) {
                row.add("object", o);
            } else if (!"None".equals(includeObject)) {
                row.add("object", Json.object("kind", "PartialObjectMetadata", "apiVersion", "meta.k8s.io/v1",
                        "metadata", o.get("metadata")));
            }
            rows.add(row);
        }
        return Json.object("kind", "Table", "apiVersion", "meta.k8s.io/v1", "metadata", listMeta,
                "columnDefinitions", definitions, "rows", rows);
    }

    private static List<Column> columns(ResourceType t) {
        List<Column> columns = new ArrayList<>();
        columns.add(new Column("Name", "string", "name", "Name must be unique within a namespace.", 0,
                ".metadata.name"));
        if (t.custom() && t.printerColumns() != null && !t.printerColumns().isEmpty()) {
            for (JsonElement e : t.printerColumns()) {
                JsonObject c = e.getAsJsonObject();
                columns.add(new Column(Json.str(c, "name"), Json.str(c, "type"),
                        Json.str(c, "format") == null ? "" : Json.str(c, "format"),
                        Json.str(c, "description") == null ? "" : Json.str(c, "description"),
                        c.has("priority") ? c.get("priority").getAsInt() : 0, Json.str(c, "jsonPath"), true));
            }
            return columns;
        }
        if (t.is("", "namespaces") || t.is("", "pods") || t.is("", "persistentvolumeclaims")) {
            columns.add(new Column("Status", "string", "", "The phase of the object.", 0, ".status.phase"));
        }
        if (t.is("", "pods")) {
            columns.add(new Column("Node", "string", "", "The node the pod is bound to.", 1, ".spec.nodeName"));
        }
        if (t.is("", "services")) {
            columns.add(new Column("Type", "string", "", "The type of the service.", 0, ".spec.type"));
            columns.add(new Column("Cluster-IP", "string", "", "The cluster IP of the service.", 0, ".spec.clusterIP"));
        }
        columns.add(new Column("Age", "date", "", "CreationTimestamp is a timestamp representing the server time "
                + "when this object was created.", 0, ".metadata.creationTimestamp"));
        return columns;
    }

    private static JsonElement cell(JsonObject o, Column c, Instant now) {
        String path = c.path() == null ? "" : c.path().startsWith(".") ? c.path().substring(1) : c.path();
        JsonElement value = path.isEmpty() || path.contains("[") ? null : Json.at(o, path);
        if (value == null || value.isJsonNull()) {
            return c.custom() ? JsonNull.INSTANCE : Json.toElement("<none>");
        }
        if (c.type().equals("date") && value.isJsonPrimitive()) {
            try {
                return Json.toElement(age(Duration.between(Instant.parse(value.getAsString()), now)));
            } catch (RuntimeException e) {
                return value;
            }
        }
        return value;
    }

    /** Like kubectl's short human durations: 45s, 5m, 3h, 12d, 2y. */
    static String age(Duration d) {
        long s = Math.max(0, d.getSeconds());
        if (s < 120) {
            return s + "s";
        }
        if (s < 120 * 60) {
            return s / 60 + "m";
        }
        if (s < 48 * 3600) {
            return s / 3600 + "h";
        }
        if (s < 2 * 365 * 86400L) {
            return s / 86400 + "d";
        }
        return s / (365 * 86400L) + "y";
    }
}
