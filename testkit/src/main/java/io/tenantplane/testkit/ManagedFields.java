package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Field ownership and server-side apply, as the API server's field manager does them
 * ({@code staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/}: {@code fieldmanager.go},
 * {@code structuredmerge.go}, {@code stripmeta.go}, {@code conflict.go}) on top of structured-merge-diff's
 * {@code merge.Updater} ({@code Update}, {@code Apply}, {@code prune}).
 *
 * <p>A field set is a set of paths; a path is a list of path elements written as in {@code fieldsV1}:
 * {@code f:name} (a field), {@code k:{"name":"x"}} (an item of a list keyed by its map keys), {@code v:"x"} (an item
 * of a set). Which lists are keyed and which maps and lists are atomic comes from the CRD schema
 * ({@code x-kubernetes-list-type}, {@code x-kubernetes-list-map-keys}, {@code x-kubernetes-map-type}) for custom
 * resources, and from the list-map keys of the built-in kinds' OpenAPI for the fields the tests touch.
 *
 * <p>Known differences (docs/testing.md): which built-in structs are values (never owned whole) is a fixed list,
 * not the Go types; list-map keys of the built-in kinds are those of the fields the tests touch; items of a keyed
 * list keep the live order with new items appended; the cap of ten update managers is not modelled.
 */
final class ManagedFields {

    /** A manager's entry: its identity (manager, operation, API version of an update, subresource) and its set. */
    record Entry(String manager, String operation, String apiVersion, String subresource, String time,
            Set<List<String>> fields) {

        boolean sameIdentity(Entry o) {
            return manager.equals(o.manager) && operation.equals(o.operation) && subresource.equals(o.subresource)
                    && ("Apply".equals(operation) || apiVersion.equals(o.apiVersion));
        }

        /** As {@code printManager} in conflict.go. */
        String printed() {
            String s = "\"" + manager + "\"" + (subresource.isEmpty() ? "" : " with subresource \"" + subresource + "\"");
            return "Update".equals(operation) ? s + " using " + apiVersion : s;
        }
    }

    /** Who writes: the field manager of the request, the operation, and the subresource ({@code ""} or status). */
    record Writer(String manager, String subresource) {
    }

    private static final Set<String> STRIPPED_META = Set.of("name", "namespace", "creationTimestamp", "selfLink",
            "uid", "clusterName", "generation", "managedFields", "resourceVersion");

    /**
     * Structs of the built-in kinds that are not pointers in Go: present (empty) in the typed zero object, so a
     * create does not add them and nobody owns them as a whole. Every other object an update adds is owned as a
     * whole ({@code "."}), as {@code TypedValue.Compare} inserts an added map.
     */
    private static final Set<String> VALUE_STRUCTS = Set.of("spec", "status", "spec.template",
            "spec.template.metadata", "spec.template.spec", "spec.strategy", "spec.updateStrategy",
            "spec.jobTemplate", "spec.jobTemplate.spec", "spec.jobTemplate.spec.template",
            "spec.jobTemplate.spec.template.spec", "spec.jobTemplate.spec.template.metadata");

    private ManagedFields() {
    }

    // ---- the operations ----

    /**
     * The managed fields after a create, update or non-apply patch by {@code writer}: {@code Updater.Update}. The
     * writer takes what it added or changed; every manager loses what was removed and what the writer changed.
     */
    static List<Entry> update(ResourceType t, JsonObject live, JsonObject next, List<Entry> managed, Writer writer,
            String apiVersion, String now) {
        Comparison c = compare(t, live, next, writer.subresource());
        Entry me = new Entry(writer.manager(), "Update", apiVersion, writer.subresource(), now, new HashSet<>());
        List<Entry> out = new ArrayList<>();
        Entry previous = null;
        for (Entry e : managed) {
            if (e.sameIdentity(me)) {
                previous = e;
                continue;
            }
            Set<List<String>> kept = new HashSet<>(e.fields());
            kept.removeAll(c.modified);
            kept.removeAll(c.added);
            kept.removeAll(c.removed);
            if (!kept.isEmpty()) {
                out.add(kept.size() == e.fields().size() ? e : withFields(e, kept, e.time()));
            }
        }
        Set<List<String>> mine = new HashSet<>(previous == null ? Set.of() : previous.fields());
        mine.addAll(c.modified);
        mine.addAll(c.added);
        mine.removeAll(c.removed);
        if (!mine.isEmpty()) {
            boolean changed = previous == null || !mine.equals(previous.fields());
            out.add(withFields(me, mine, changed || previous.time() == null ? now : previous.time()));
        }
        return capUpdateManagers(out);
    }

    /** {@code DefaultMaxUpdateManagers} of {@code fieldmanager.go}. */
    static final int MAX_UPDATE_MANAGERS = 10;

    /**
     * {@code capManagersManager.capUpdateManagers} ({@code managedfields/internal/capmanagers.go}): when more than
     * {@link #MAX_UPDATE_MANAGERS} entries come from updates, the oldest (by time in seconds, then by identifier) are
     * merged, per API version, into one {@code ancient-changes} entry until the cap holds; applied entries stay.
     */
    static List<Entry> capUpdateManagers(List<Entry> managed) {
        List<Entry> updaters = new ArrayList<>(managed.stream().filter(e -> !"Apply".equals(e.operation())).toList());
        if (updaters.size() <= MAX_UPDATE_MANAGERS) {
            return managed;
        }
        updaters.sort(Comparator.comparingLong((Entry e) -> seconds(e.time())).thenComparing(ManagedFields::identifier));
        Map<String, Entry> byId = new LinkedHashMap<>();
        managed.forEach(e -> byId.put(identifier(e), e));
        Map<String, String> versionToFirst = new java.util.HashMap<>();
        int length = updaters.size();
        for (int i = 0; i < updaters.size() && length > MAX_UPDATE_MANAGERS; i++) {
            Entry m = updaters.get(i);
            String version = m.apiVersion();
            Entry bucketIdentity = new Entry("ancient-changes", "Update", version, "", null, Set.of());
            String bucket = identifier(bucketIdentity);
            String first = versionToFirst.get(version);
            if (first == null) {
                versionToFirst.put(version, identifier(m));
                continue;
            }
            if (!byId.containsKey(bucket)) {
                Entry moved = byId.remove(first);
                byId.put(bucket, withFields(bucketIdentity, moved.fields(), moved.time()));
            }
            Set<List<String>> union = new HashSet<>(m.fields());
            union.addAll(byId.get(bucket).fields());
            byId.put(bucket, withFields(bucketIdentity, union, m.time()));
            // As upstream: the merged entry goes, whatever it is (the bucket too, should it be the one merged).
            byId.remove(identifier(m));
            length--;
        }
        return new ArrayList<>(byId.values());
    }

    /** {@code BuildManagerIdentifier}: the entry's identity fields as JSON, in the struct's field order. */
    private static String identifier(Entry e) {
        StringBuilder b = new StringBuilder("{");
        java.util.function.BiConsumer<String, String> field = (k, v) -> {
            if (!v.isEmpty()) {
                b.append(b.length() > 1 ? "," : "").append('"').append(k).append("\":")
                        .append(Json.text(new com.google.gson.JsonPrimitive(v)));
            }
        };
        field.accept("manager", e.manager());
        field.accept("operation", e.operation());
        field.accept("apiVersion", "Apply".equals(e.operation()) ? "" : e.apiVersion());
        field.accept("subresource", e.subresource());
        return b.append('}').toString();
    }

    private static long seconds(String time) {
        return time == null ? 0 : java.time.Instant.parse(time).getEpochSecond();
    }

    /** The object and managed fields after an apply: merge, prune what the applier dropped, settle conflicts. */
    record Applied(JsonObject object, List<Entry> managed) {
    }

    /**
     * Server-side apply of {@code config} by {@code writer} onto {@code live} ({@code {}} when the object does not
     * exist): {@code Updater.Apply}. Fields another manager owns and this apply would change are conflicts: a 409 with
     * one {@code FieldManagerConflict} cause each, unless {@code force}, which takes them over.
     */
    static Applied apply(ResourceType t, JsonObject live, JsonObject config, List<Entry> managed, Writer writer,
            boolean force, String now) {
        Set<List<String>> applied = applySet(t, config, writer.subresource());
        Entry last = null;
        List<Entry> others = new ArrayList<>();
        Entry me = new Entry(writer.manager(), "Apply", t.apiVersion(), writer.subresource(), now, applied);
        for (Entry e : managed) {
            if (e.sameIdentity(me)) {
                last = e;
            } else {
                others.add(e);
            }
        }
        JsonObject merged = (JsonObject) merge(t, live, config, Cursor.root(t));
        if (last != null) {
            Set<List<String>> keep = new HashSet<>(applied);
            others.stream().filter(e -> "Apply".equals(e.operation())).forEach(e -> keep.addAll(e.fields()));
            List<List<String>> doomed = new ArrayList<>();
            for (List<String> p : last.fields()) {
                if (!applied.contains(p) && keep.stream().noneMatch(k -> startsWith(k, p))) {
                    doomed.add(p);
                }
            }
            doomed.sort(Comparator.comparingInt(List::size));
            for (List<String> p : doomed) {
                remove(merged, p);
            }
        }
        Comparison c = compare(t, live, merged, writer.subresource());
        Map<Entry, Set<List<String>>> conflicts = new LinkedHashMap<>();
        for (Entry e : others) {
            Set<List<String>> clash = new TreeSet<>(PATH_ORDER);
            for (List<String> p : e.fields()) {
                if (c.modified.contains(p) || c.added.contains(p)) {
                    clash.add(p);
                }
            }
            if (!clash.isEmpty()) {
                conflicts.put(e, clash);
            }
        }
        if (!force && !conflicts.isEmpty() && "kubectl".equals(writer.manager())) {
            // lastappliedmanager.go: kubectl's apply takes over, without --force-conflicts, the fields its own
            // client-side apply set (the last-applied annotation) where they still hold that value.
            Set<List<String>> allowed = lastApplied(t, live, writer.subresource());
            Map<Entry, Set<List<String>>> remaining = new LinkedHashMap<>();
            conflicts.forEach((e, paths) -> {
                Set<List<String>> left = new TreeSet<>(PATH_ORDER);
                paths.stream().filter(p -> !allowed.contains(p)).forEach(left::add);
                if (!left.isEmpty()) {
                    remaining.put(e, left);
                }
            });
            if (!remaining.isEmpty()) {
                throw conflict(remaining);
            }
            force = true;
        }
        if (!force && !conflicts.isEmpty()) {
            throw conflict(conflicts);
        }
        List<Entry> out = new ArrayList<>();
        for (Entry e : others) {
            Set<List<String>> kept = new HashSet<>(e.fields());
            kept.removeAll(conflicts.getOrDefault(e, Set.of()));
            kept.removeAll(c.removed);
            if (!kept.isEmpty()) {
                out.add(kept.size() == e.fields().size() ? e : withFields(e, kept, e.time()));
            }
        }
        if (!applied.isEmpty()) {
            boolean changed = last == null || !applied.equals(last.fields()) || !c.isEmpty();
            out.add(withFields(me, applied, changed || last.time() == null ? now : last.time()));
        }
        return new Applied(merged, out);
    }

    /**
     * The fields of the client-side apply annotation whose value the live object still has
     * ({@code allowedConflictsFromLastApplied}); none without the annotation or in another version.
     */
    private static Set<List<String>> lastApplied(ResourceType t, JsonObject live, String subresource) {
        String annotation = Json.str(Json.obj(Json.obj(live, "metadata"), "annotations"),
                "kubectl.kubernetes.io/last-applied-configuration");
        if (annotation == null || annotation.isEmpty()) {
            return Set.of();
        }
        JsonObject lastApplied;
        try {
            lastApplied = Json.parseObject(annotation.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            return Set.of();
        }
        if (!t.apiVersion().equals(Json.str(lastApplied, "apiVersion"))) {
            return Set.of();
        }
        Set<List<String>> set = applySet(t, lastApplied, subresource);
        Comparison c = compare(t, lastApplied, live, subresource);
        set.removeAll(c.modified);
        set.removeAll(c.added);
        set.removeAll(c.removed);
        return set;
    }

    /** {@code NewConflictError} and {@code getConflictMessage} (conflict.go). */
    private static ApiError conflict(Map<Entry, Set<List<String>>> conflicts) {
        JsonArray causes = new JsonArray();
        List<String[]> all = new ArrayList<>();
        for (Map.Entry<Entry, Set<List<String>>> e : conflicts.entrySet()) {
            for (List<String> p : e.getValue()) {
                String path = pathString(p);
                all.add(new String[] {e.getKey().printed(), path});
                causes.add(Json.object("reason", "FieldManagerConflict", "message", "conflict with "
                        + e.getKey().printed(), "field", path));
            }
        }
        String message;
        if (all.size() == 1) {
            message = "Apply failed with 1 conflict: conflict with " + all.get(0)[0] + ": " + all.get(0)[1];
        } else {
            TreeMap<String, List<String>> byManager = new TreeMap<>();
            for (String[] c : all) {
                byManager.computeIfAbsent(c[0], k -> new ArrayList<>()).add(c[1]);
            }
            List<String> lines = new ArrayList<>();
            byManager.forEach((m, paths) -> {
                lines.add("conflicts with " + m + ":");
                paths.forEach(p -> lines.add("- " + p));
            });
            message = "Apply failed with " + all.size() + " conflicts: " + String.join("\n", lines);
        }
        // errors.NewApplyConflict: 409, reason Conflict, the causes in details.
        return new ApiError(409, "Conflict", message, Json.object("causes", causes));
    }

    // ---- field sets of objects ----

    private record Comparison(Set<List<String>> added, Set<List<String>> modified, Set<List<String>> removed) {
        boolean isEmpty() {
            return added.isEmpty() && modified.isEmpty() && removed.isEmpty();
        }
    }

    /** {@code TypedValue.Compare}, with the strip-meta and reset-field filters of the field manager. */
    private static Comparison compare(ResourceType t, JsonObject live, JsonObject next, String subresource) {
        Comparison c = new Comparison(new HashSet<>(), new HashSet<>(), new HashSet<>());
        compare(Cursor.root(t), List.of(), live, next, c);
        for (Set<List<String>> s : List.of(c.added, c.modified, c.removed)) {
            s.removeIf(p -> !tracked(t, p, subresource));
        }
        return c;
    }

    private static void compare(Cursor at, List<String> path, JsonElement l, JsonElement r, Comparison c) {
        l = absentIfNull(l);
        r = absentIfNull(r);
        if (l == null && r == null) {
            return;
        }
        JsonElement sample = r != null ? r : l;
        Shape shape = at.shape(sample);
        boolean bothSame = l == null || r == null || l.isJsonObject() == r.isJsonObject()
                && l.isJsonArray() == r.isJsonArray();
        if (shape == Shape.LEAF || !bothSame) {
            if (l == null) {
                c.added.add(path);
            } else if (r == null) {
                c.removed.add(path);
            } else if (!Json.same(l, r)) {
                c.modified.add(path);
            }
            return;
        }
        if (shape == Shape.OBJECT) {
            if (at.ownedWhole(path)) {
                if (l == null) {
                    c.added.add(path);
                } else if (r == null) {
                    c.removed.add(path);
                }
            }
            compareFields(at, path, l, r, c);
            return;
        }
        Map<String, JsonElement> li = items(at, l);
        Map<String, JsonElement> ri = items(at, r);
        Set<String> keys = new TreeSet<>(li.keySet());
        keys.addAll(ri.keySet());
        Cursor item = at.item();
        for (String k : keys) {
            List<String> p = append(path, k);
            JsonElement a = li.get(k);
            JsonElement b = ri.get(k);
            // An item is owned itself, added or removed as a whole; a keyed item's fields are compared within it.
            if (a == null) {
                c.added.add(p);
            } else if (b == null) {
                c.removed.add(p);
            }
            if (shape == Shape.KEYED && sampleOf(a, b).isJsonObject()) {
                compareFields(item, p, a, b, c);
            }
        }
    }

    /** Compares the fields of two objects (either may be absent) at {@code path}, each under its own cursor. */
    private static void compareFields(Cursor at, List<String> path, JsonElement l, JsonElement r, Comparison c) {
        Set<String> keys = new TreeSet<>();
        if (l != null) {
            keys.addAll(l.getAsJsonObject().keySet());
        }
        if (r != null) {
            keys.addAll(r.getAsJsonObject().keySet());
        }
        for (String k : keys) {
            compare(at.field(k), append(path, "f:" + k), l == null ? null : l.getAsJsonObject().get(k),
                    r == null ? null : r.getAsJsonObject().get(k), c);
        }
    }

    /** {@code TypedValue.ToFieldSet} of an applied configuration, stripped as the field manager strips it. */
    static Set<List<String>> applySet(ResourceType t, JsonObject config, String subresource) {
        Set<List<String>> out = new HashSet<>();
        collect(Cursor.root(t), List.of(), config, out);
        out.removeIf(p -> !tracked(t, p, subresource));
        return out;
    }

    private static void collect(Cursor at, List<String> path, JsonElement v, Set<List<String>> out) {
        v = absentIfNull(v);
        if (v == null) {
            return;
        }
        Shape shape = at.shape(v);
        if (shape == Shape.LEAF) {
            out.add(path);
        } else if (shape == Shape.OBJECT) {
            JsonObject o = v.getAsJsonObject();
            if (o.isEmpty() && !path.isEmpty()) {
                out.add(path);
            }
            for (Map.Entry<String, JsonElement> e : o.entrySet()) {
                collect(at.field(e.getKey()), append(path, "f:" + e.getKey()), e.getValue(), out);
            }
        } else {
            Cursor item = at.item();
            for (Map.Entry<String, JsonElement> e : items(at, v).entrySet()) {
                List<String> p = append(path, e.getKey());
                out.add(p);
                if (shape == Shape.KEYED && e.getValue().isJsonObject()) {
                    for (Map.Entry<String, JsonElement> f : e.getValue().getAsJsonObject().entrySet()) {
                        collect(item.field(f.getKey()), append(p, "f:" + f.getKey()), f.getValue(), out);
                    }
                }
            }
        }
    }

    /** Paths the field manager keeps: not type or system metadata ({@code stripmeta.go}), not reset fields. */
    private static boolean tracked(ResourceType t, List<String> p, String subresource) {
        if (p.isEmpty()) {
            return false;
        }
        String top = p.get(0);
        if (top.equals("f:apiVersion") || top.equals("f:kind")) {
            return false;
        }
        if (top.equals("f:metadata") && (p.size() == 1 || STRIPPED_META.contains(p.get(1).substring(2)))) {
            return false;
        }
        if (t.statusSubresource()) {
            // The strategies' GetResetFields: status through the main resource, everything else through status.
            return "status".equals(subresource) == top.equals("f:status");
        }
        return true;
    }

    // ---- merge and prune ----

    /** {@code TypedValue.Merge}: the configuration over the live object, keyed lists item by item. */
    private static JsonElement merge(ResourceType t, JsonElement l, JsonElement r, Cursor at) {
        l = absentIfNull(l);
        r = absentIfNull(r);
        if (r == null) {
            return l == null ? null : l.deepCopy();
        }
        if (l == null) {
            return withoutNulls(r.deepCopy());
        }
        Shape shape = at.shape(r);
        if (shape == Shape.LEAF || l.isJsonObject() != r.isJsonObject() || l.isJsonArray() != r.isJsonArray()) {
            return withoutNulls(r.deepCopy());
        }
        if (shape == Shape.OBJECT) {
            JsonObject out = l.getAsJsonObject().deepCopy();
            for (Map.Entry<String, JsonElement> e : r.getAsJsonObject().entrySet()) {
                JsonElement m = merge(t, out.get(e.getKey()), e.getValue(), at.field(e.getKey()));
                if (m != null) {
                    out.add(e.getKey(), m);
                }
            }
            return out;
        }
        Map<String, JsonElement> li = items(at, l);
        JsonArray out = new JsonArray();
        Map<String, JsonElement> ri = items(at, r);
        for (Map.Entry<String, JsonElement> e : li.entrySet()) {
            JsonElement over = ri.get(e.getKey());
            out.add(over == null ? e.getValue().deepCopy() : merge(t, e.getValue(), over, at.item()));
        }
        for (Map.Entry<String, JsonElement> e : ri.entrySet()) {
            if (!li.containsKey(e.getKey())) {
                out.add(withoutNulls(e.getValue().deepCopy()));
            }
        }
        return out;
    }

    /** Removes the node at {@code path}, if there. */
    private static void remove(JsonObject root, List<String> path) {
        JsonElement at = root;
        for (int i = 0; i < path.size(); i++) {
            String el = path.get(i);
            boolean last = i == path.size() - 1;
            if (el.startsWith("f:") && at instanceof JsonObject o) {
                if (last) {
                    o.remove(el.substring(2));
                    return;
                }
                at = o.get(el.substring(2));
            } else if (at instanceof JsonArray a) {
                int found = -1;
                for (int j = 0; j < a.size(); j++) {
                    if (el.equals(itemKey(a.get(j), el))) {
                        found = j;
                        break;
                    }
                }
                if (found < 0) {
                    return;
                }
                if (last) {
                    a.remove(found);
                    return;
                }
                at = a.get(found);
            } else {
                return;
            }
        }
    }

    /** The path element of a list item that answers {@code like}'s form ({@code k:} or {@code v:}). */
    private static String itemKey(JsonElement item, String like) {
        if (like.startsWith("v:")) {
            return "v:" + Json.text(item);
        }
        if (!item.isJsonObject() || !like.startsWith("k:")) {
            return null;
        }
        JsonObject wanted = Json.parseObject(like.substring(2).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        JsonObject key = new JsonObject();
        for (String k : wanted.keySet()) {
            JsonElement v = item.getAsJsonObject().get(k);
            key.add(k, v == null ? wanted.get(k) : v);
        }
        return "k:" + Json.text(key);
    }

    // ---- shapes ----

    private enum Shape { LEAF, OBJECT, KEYED, SET }

    /** Where a walk stands: the CRD schema node (custom resources) or the dotted field path (built-in kinds). */
    private record Cursor(ResourceType type, String dotted, JsonObject schema, boolean preserve) {

        static Cursor root(ResourceType t) {
            return new Cursor(t, "", t.schema(), t.schema() != null && Json.bool(t.schema(),
                    "x-kubernetes-preserve-unknown-fields"));
        }

        Cursor field(String key) {
            String d = dotted.isEmpty() ? key : dotted + "." + key;
            if (schema == null) {
                return new Cursor(type, d, null, preserve && type.custom());
            }
            JsonObject props = Json.obj(schema, "properties");
            JsonObject next = props == null ? null : Json.obj(props, key);
            if (next == null && schema.has("additionalProperties") && schema.get("additionalProperties").isJsonObject()) {
                next = schema.getAsJsonObject("additionalProperties");
            }
            boolean keep = next == null ? Json.bool(schema, "x-kubernetes-preserve-unknown-fields") || preserve
                    : Json.bool(next, "x-kubernetes-preserve-unknown-fields");
            return new Cursor(type, d, next, keep);
        }

        Cursor item() {
            JsonObject items = schema == null ? null : Json.obj(schema, "items");
            return new Cursor(type, dotted, items, items != null && Json.bool(items,
                    "x-kubernetes-preserve-unknown-fields"));
        }

        Shape shape(JsonElement sample) {
            if (sample.isJsonArray()) {
                if (type.custom()) {
                    String listType = schema == null ? null : Json.str(schema, "x-kubernetes-list-type");
                    return "map".equals(listType) ? Shape.KEYED : "set".equals(listType) ? Shape.SET : Shape.LEAF;
                }
                if (dotted.equals("metadata.finalizers")) {
                    return Shape.SET;
                }
                return keys() == null ? Shape.LEAF : Shape.KEYED;
            }
            if (sample.isJsonObject()) {
                if (type.custom()) {
                    return schema != null && "atomic".equals(Json.str(schema, "x-kubernetes-map-type"))
                            ? Shape.LEAF : Shape.OBJECT;
                }
                String field = dotted.substring(dotted.lastIndexOf('.') + 1);
                // LabelSelector is structType=atomic and a Service's selector mapType=atomic.
                return field.equals("selector") || field.endsWith("Selector") && !field.equals("nodeSelector")
                        ? Shape.LEAF : Shape.OBJECT;
            }
            return Shape.LEAF;
        }

        /** Whether an object here is itself owned when added or removed ({@code "."} in fieldsV1). */
        boolean ownedWhole(List<String> path) {
            if (path.isEmpty()) {
                return false;
            }
            if (type.custom()) {
                return true;
            }
            return !VALUE_STRUCTS.contains(dotted);
        }

        /** The list-map keys of a keyed list ({@code x-kubernetes-list-map-keys} / the built-ins' OpenAPI). */
        List<String> keys() {
            if (type.custom()) {
                JsonArray keys = schema == null ? null : Json.arr(schema, "x-kubernetes-list-map-keys");
                List<String> out = new ArrayList<>();
                if (keys != null) {
                    keys.forEach(k -> out.add(k.getAsString()));
                }
                return out;
            }
            if (dotted.endsWith("ontainers.ports")) {
                return List.of("containerPort", "protocol");
            }
            if (type.is("", "services") && dotted.equals("spec.ports")) {
                return List.of("port", "protocol");
            }
            if (dotted.endsWith("topologySpreadConstraints")) {
                return List.of("topologyKey", "whenUnsatisfiable");
            }
            String key = Patches.mergeKey(dotted, type, null);
            return key == null ? null : List.of(key);
        }
    }

    /** The items of a keyed list or set by path element; later duplicates win, as the server refuses them anyway. */
    private static Map<String, JsonElement> items(Cursor at, JsonElement list) {
        Map<String, JsonElement> out = new LinkedHashMap<>();
        if (list == null || !list.isJsonArray()) {
            return out;
        }
        List<String> keys = at.keys();
        for (JsonElement item : list.getAsJsonArray()) {
            if (at.shape(list) == Shape.SET || !item.isJsonObject() || keys == null) {
                out.put("v:" + Json.text(item), item);
                continue;
            }
            JsonObject key = new JsonObject();
            for (String k : new TreeSet<>(keys)) {
                JsonElement v = item.getAsJsonObject().get(k);
                // The defaulted protocol of ports is part of their key (openapi default "TCP").
                key.add(k, v != null ? v : k.equals("protocol") ? new JsonPrimitive("TCP") : null);
            }
            out.put("k:" + Json.text(key), item);
        }
        return out;
    }

    // ---- fieldsV1 and the managedFields list ----

    /** The {@code metadata.managedFields} of an object, read back into entries. */
    static List<Entry> read(JsonObject object) {
        return read(Json.arr(Json.obj(object, "metadata"), "managedFields"));
    }

    /** A {@code managedFields} list (null: none) read back into entries. */
    static List<Entry> read(JsonArray list) {
        List<Entry> out = new ArrayList<>();
        if (list == null) {
            return out;
        }
        for (JsonElement el : list) {
            if (!el.isJsonObject()) {
                continue;
            }
            JsonObject e = el.getAsJsonObject();
            Set<List<String>> fields = new HashSet<>();
            JsonObject v1 = Json.obj(e, "fieldsV1");
            if (v1 != null) {
                parse(v1, List.of(), fields);
            }
            out.add(new Entry(orEmpty(Json.str(e, "manager")), orEmpty(Json.str(e, "operation")),
                    orEmpty(Json.str(e, "apiVersion")), orEmpty(Json.str(e, "subresource")), Json.str(e, "time"),
                    fields));
        }
        return out;
    }

    /** Entries as {@code metadata.managedFields}, sorted as {@code sortEncodedManagedFields} does. */
    static JsonArray write(List<Entry> entries) {
        List<Entry> sorted = new ArrayList<>(entries);
        sorted.sort(Comparator.comparing(Entry::operation).thenComparing(e -> e.time() == null ? "" : e.time())
                .thenComparing(Entry::manager).thenComparing(Entry::apiVersion).thenComparing(Entry::subresource));
        JsonArray out = new JsonArray();
        for (Entry e : sorted) {
            JsonObject o = Json.object("manager", e.manager(), "operation", e.operation(), "apiVersion",
                    e.apiVersion());
            if (e.time() != null) {
                o.addProperty("time", e.time());
            }
            o.addProperty("fieldsType", "FieldsV1");
            o.add("fieldsV1", fieldsV1(e.fields()));
            if (!e.subresource().isEmpty()) {
                o.addProperty("subresource", e.subresource());
            }
            out.add(o);
        }
        return out;
    }

    static JsonObject fieldsV1(Set<List<String>> paths) {
        Node root = new Node();
        for (List<String> p : paths) {
            Node n = root;
            for (String el : p) {
                n = n.children.computeIfAbsent(el, k -> new Node());
            }
            n.member = true;
        }
        return root.json();
    }

    private static final class Node {
        boolean member;
        final TreeMap<String, Node> children = new TreeMap<>();

        JsonObject json() {
            JsonObject o = new JsonObject();
            if (member && !children.isEmpty()) {
                o.add(".", new JsonObject());
            }
            children.forEach((k, v) -> o.add(k, v.json()));
            return o;
        }
    }

    private static void parse(JsonObject node, List<String> path, Set<List<String>> out) {
        if (node.isEmpty()) {
            if (!path.isEmpty()) {
                out.add(path);
            }
            return;
        }
        for (Map.Entry<String, JsonElement> e : node.entrySet()) {
            if (e.getKey().equals(".")) {
                out.add(path);
            } else if (e.getValue().isJsonObject()) {
                parse(e.getValue().getAsJsonObject(), append(path, e.getKey()), out);
            }
        }
    }

    /** {@code fieldpath.Path.String}: {@code .spec.containers[name="app"].image}. */
    static String pathString(List<String> path) {
        StringBuilder sb = new StringBuilder();
        for (String el : path) {
            if (el.startsWith("f:")) {
                sb.append('.').append(el.substring(2));
            } else if (el.startsWith("k:")) {
                JsonObject key = Json.parseObject(el.substring(2).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                List<String> parts = new ArrayList<>();
                key.entrySet().forEach(k -> parts.add(k.getKey() + "=" + Json.text(k.getValue())));
                sb.append('[').append(String.join(",", parts)).append(']');
            } else if (el.startsWith("v:")) {
                sb.append("[=").append(el.substring(2)).append(']');
            } else if (el.startsWith("i:")) {
                sb.append('[').append(el.substring(2)).append(']');
            }
        }
        return sb.toString();
    }

    // ---- helpers ----

    private static final Comparator<List<String>> PATH_ORDER = (a, b) -> pathString(a).compareTo(pathString(b));

    private static Entry withFields(Entry e, Set<List<String>> fields, String time) {
        return new Entry(e.manager(), e.operation(), e.apiVersion(), e.subresource(), time, fields);
    }

    private static boolean startsWith(List<String> path, List<String> prefix) {
        return path.size() >= prefix.size() && path.subList(0, prefix.size()).equals(prefix);
    }

    private static List<String> append(List<String> path, String el) {
        List<String> out = new ArrayList<>(path.size() + 1);
        out.addAll(path);
        out.add(el);
        return List.copyOf(out);
    }

    private static JsonElement absentIfNull(JsonElement e) {
        return e == null || e.isJsonNull() ? null : e;
    }

    private static JsonElement sampleOf(JsonElement a, JsonElement b) {
        return b != null ? b : a;
    }

    private static JsonElement withoutNulls(JsonElement e) {
        if (e instanceof JsonObject o) {
            o.entrySet().removeIf(en -> en.getValue().isJsonNull());
            o.entrySet().forEach(en -> withoutNulls(en.getValue()));
        } else if (e instanceof JsonArray a) {
            a.forEach(ManagedFields::withoutNulls);
        }
        return e;
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }
}
