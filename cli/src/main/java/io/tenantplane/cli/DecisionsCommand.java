package io.tenantplane.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.tenantplane.events.EventObserver;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import java.io.File;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tenantplane decisions}: what the reconciler did for a tenant, from its Events on the host. */
final class DecisionsCommand implements Subcommand {

    @Override
    public CommandSpec spec() {
        CommandSpec s = Specs.command("decisions", new String[] {
            "Lists the decisions tenantplane executed for a tenant.",
            "",
            "Newest first, from the events.k8s.io/v1 Events that the reconciler",
            "records on the TenantCluster (label tenantplane.io/tenant), read from the",
            "host cluster of the kubeconfig. Decisions that change nothing",
            "(Unchanged, Skip) make no Event; repeats of one decision are one Event",
            "with a COUNT. This is the only command that talks to a cluster, and it",
            "only reads."}, new String[] {
            "",
            "Examples:",
            "  tenantplane decisions --tenant team-dev/dev",
            "  tenantplane decisions --tenant team-dev/dev --limit 50 -o wide \\",
            "      --kubeconfig ~/.kube/host.yaml --context host-admin",
            "",
            "Exit codes: 0 listed, 2 bad input (tenant, kubeconfig) or the host API",
            "cannot be read."});
        s.addOption(Specs.requiredValue("NAMESPACE/NAME", "The TenantCluster: its namespace and name, e.g. "
                + "team-dev/dev.", "--tenant"));
        s.addOption(Specs.value("FILE", "The host cluster's kubeconfig. Default: $KUBECONFIG (its first file), "
                + "else ~/.kube/config.", "--kubeconfig"));
        s.addOption(Specs.value("NAME", "The kubeconfig context. Default: its current one.", "--context"));
        s.addOption(Specs.intValue("N", "At most N decisions (default 20).", "--limit"));
        s.addOption(Specs.value("FORMAT", "table (default), wide (with the sentence), yaml or json.", "-o", "--output"));
        return s;
    }

    @Override
    public int run(Args a) {
        String output = a.string("-o", "table");
        boolean wide = "wide".equalsIgnoreCase(output.trim());
        Format format = wide ? Format.TABLE
                : Format.parse(output, List.of("table", "wide", "yaml", "json"), Format.TABLE, Format.YAML, Format.JSON);
        String[] key = tenantKey(a.string("--tenant"));
        int limit = a.integer("--limit", 20);
        if (limit < 1) {
            throw new CliException(null, "--limit", "must be at least 1, got " + limit, "pass e.g. --limit 20");
        }
        List<JsonObject> events = list(client(a.string("--kubeconfig"), a.string("--context")), key[0], key[1]);
        events.sort(Comparator.comparing(DecisionsCommand::lastSeen, Comparator.nullsLast(Comparator.reverseOrder()))
                .thenComparing(e -> String.valueOf(Json.string(e, "metadata", "name"))));
        List<JsonObject> shown = events.subList(0, Math.min(limit, events.size()));
        a.print(switch (format) {
            case TABLE -> table(shown, wide) + "\n" + shown.size() + " of " + events.size() + " recorded decision"
                    + (events.size() == 1 ? "" : "s") + " of TenantCluster " + key[0] + "/" + key[1] + ".\n";
            case YAML -> Format.yaml(tree(shown, key));
            case JSON -> Format.json(tree(shown, key));
        });
        return Main.OK;
    }

    private static String[] tenantKey(String tenant) {
        String[] parts = tenant.split("/", -1);
        if (parts.length != 2 || !HostNames.isDns1123Label(parts[0]) || !HostNames.isDns1123Label(parts[1])) {
            throw new CliException(null, "--tenant", "'" + tenant + "' is not NAMESPACE/NAME",
                    "pass the TenantCluster's namespace and name, e.g. --tenant team-dev/dev");
        }
        return parts;
    }

    private static ApiClient client(String kubeconfig, String context) {
        // client-java logs through SLF4J, and this CLI ships no SLF4J provider; its "no providers" warning would
        // break the one-line error contract on stderr.
        if (System.getProperty("slf4j.internal.verbosity") == null) {
            System.setProperty("slf4j.internal.verbosity", "ERROR");
        }
        Path file = kubeconfigPath(kubeconfig);
        if (!Files.isRegularFile(file)) {
            throw new CliException(file.toString(), "--kubeconfig", "no such file",
                    "pass --kubeconfig FILE or set KUBECONFIG to the host cluster's kubeconfig");
        }
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            KubeConfig kc = KubeConfig.loadKubeConfig(r);
            kc.setFile(file.toFile());
            if (context != null && !kc.setContext(context)) {
                throw new CliException(file.toString(), "--context", "no context named '" + context + "'",
                        "pass one of the contexts listed by kubectl config get-contexts");
            }
            return ClientBuilder.kubeconfig(kc).build();
        } catch (IOException | RuntimeException e) {
            if (e instanceof CliException c) {
                throw c;
            }
            throw new CliException(file.toString(), null, "cannot use the kubeconfig (" + rootMessage(e) + ")",
                    "check it with kubectl --kubeconfig " + file + " get ns", e);
        }
    }

    /** --kubeconfig, else the first file of $KUBECONFIG, else ~/.kube/config (as kubectl looks). */
    private static Path kubeconfigPath(String kubeconfig) {
        if (kubeconfig != null) {
            return Path.of(kubeconfig.startsWith("~/") ? System.getProperty("user.home") + kubeconfig.substring(1)
                    : kubeconfig);
        }
        String env = System.getenv("KUBECONFIG");
        if (env != null && !env.isBlank()) {
            return Path.of(env.split(File.pathSeparator)[0]);
        }
        return Path.of(System.getProperty("user.home"), ".kube", "config");
    }

    private static List<JsonObject> list(ApiClient client, String namespace, String name) {
        DynamicKubernetesApi api = new DynamicKubernetesApi("events.k8s.io", "v1", "events", client);
        var options = new io.kubernetes.client.util.generic.options.ListOptions();
        options.setLabelSelector(EventObserver.TENANT_LABEL + "=" + name);
        KubernetesApiResponse<DynamicKubernetesListObject> response;
        try {
            response = api.list(namespace, options);
        } catch (RuntimeException e) {
            throw new CliException(client.getBasePath(), null, "cannot list Events in namespace " + namespace + " ("
                    + rootMessage(e) + ")", "check that the host cluster is reachable with this kubeconfig", e);
        }
        if (!response.isSuccess()) {
            String why = response.getStatus() != null && response.getStatus().getMessage() != null
                    ? response.getStatus().getMessage() : "HTTP " + response.getHttpStatusCode();
            throw new CliException(client.getBasePath(), null, "cannot list Events in namespace " + namespace + " ("
                    + CliException.oneLine(why) + ")", response.getHttpStatusCode() == 403
                    ? "the kubeconfig's user needs list on events.k8s.io events in " + namespace
                    : "check that the host cluster is reachable with this kubeconfig");
        }
        List<JsonObject> out = new ArrayList<>();
        for (DynamicKubernetesObject o : response.getObject().getItems()) {
            JsonObject raw = o.getRaw();
            if ("TenantCluster".equals(Json.string(raw, "regarding", "kind"))
                    && name.equals(Json.string(raw, "regarding", "name"))) {
                out.add(raw);
            }
        }
        return out;
    }

    /** The innermost cause's message, which names what failed (e.g. the address) without exception class names. */
    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
        return CliException.oneLine(m);
    }

    /** When the decision was last made: the series' last observation, else the Event's time. */
    static String lastSeen(JsonObject e) {
        String series = Json.string(e, "series", "lastObservedTime");
        if (series != null) {
            return series;
        }
        String t = Json.string(e, "eventTime");
        return t != null ? t : Json.string(e, "metadata", "creationTimestamp");
    }

    private static long count(JsonObject e) {
        JsonObject s = Json.object(e, "series");
        return s != null && s.has("count") ? s.get("count").getAsLong() : 1;
    }

    private static String object(JsonObject e) {
        JsonObject r = Json.object(e, "related");
        if (r == null) {
            return null;
        }
        String ns = Json.string(r, "namespace");
        return Json.string(r, "kind") + " " + (ns == null ? "" : ns + "/") + Json.string(r, "name");
    }

    private static String table(List<JsonObject> events, boolean wide) {
        Table t = wide ? new Table("LAST SEEN", "TYPE", "ACTION", "REASON", "OBJECT", "COUNT", "NOTE")
                : new Table("LAST SEEN", "TYPE", "ACTION", "REASON", "OBJECT", "COUNT");
        for (JsonObject e : events) {
            String[] row = {lastSeen(e), Json.string(e, "type"), Json.string(e, "action"), Json.string(e, "reason"),
                object(e), String.valueOf(count(e))};
            if (wide) {
                String[] w = java.util.Arrays.copyOf(row, 7);
                w[6] = CliException.oneLine(Json.string(e, "note"));
                t.row(w);
            } else {
                t.row(row);
            }
        }
        return t.render();
    }

    private static JsonObject tree(List<JsonObject> events, String[] key) {
        JsonObject r = new JsonObject();
        r.addProperty("tenantCluster", key[0] + "/" + key[1]);
        JsonArray a = new JsonArray();
        for (JsonObject e : events) {
            JsonObject d = new JsonObject();
            d.addProperty("lastSeen", lastSeen(e));
            d.addProperty("type", Json.string(e, "type"));
            d.addProperty("action", Json.string(e, "action"));
            d.addProperty("reason", Json.string(e, "reason"));
            JsonObject related = Json.object(e, "related");
            if (related != null) {
                d.add("object", related.deepCopy());
            }
            d.addProperty("count", count(e));
            d.addProperty("note", Json.string(e, "note"));
            d.addProperty("event", Json.string(e, "metadata", "name"));
            a.add(d);
        }
        r.add("decisions", a);
        return r;
    }
}
