package io.tenantplane.migration;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.controlplane.internal.Agents;
import io.tenantplane.controlplane.internal.TenantDns;
import io.tenantplane.isolation.IsolationRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.model.InvalidResourceException;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Problem;
import io.tenantplane.model.TenantCluster.Mode;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.Ownership;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Reasons;
import io.tenantplane.plan.Snapshot;
import io.tenantplane.plan.internal.NodeMirror;
import io.tenantplane.plan.internal.PodLifecycle;
import io.tenantplane.plan.internal.ProvisionPlan;
import io.tenantplane.plan.internal.TenantTokens;
import io.tenantplane.transform.SyncRules;
import io.tenantplane.transform.TransformOptions;
import io.tenantplane.transform.Transformer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * Plans the move of one tenant to the mode its {@code spec.mode} asks for: a pure function from a
 * {@link MigrationSnapshot} to a {@link MigrationPlan}. No I/O, no clock; the same snapshot gives the same plan.
 *
 * <p>The plan is made for where the tenant is going, from what the host and the tenant API hold now, so the same
 * rules cover a fresh migration, one resumed after a crash, and one whose {@code spec.mode} changed half way: each
 * step only writes what is still missing. Steps, in order ({@link Step}):
 * <ol>
 *   <li><b>PrepareTarget</b>: the tenant's own host namespace and the target mode's boundary (from the
 *       {@link IsolationRenderer}); the control plane's k3s flags for the target mode, written by updating the
 *       StatefulSet in place (its volume claim template and datastore claim are never touched); into private mode,
 *       the node mirrors are cordoned and the tenant's own k3s agents are started, and the step waits until they are
 *       Ready.</li>
 *   <li><b>MoveWorkloads</b>: out of the old place and into a synced mode, the sync {@link Planner} writes the copies
 *       into the target namespace and the step waits until every copied Pod is Running and Ready on the host; into
 *       or out of private mode, tenant Pods are rescheduled: deleted in the tenant API one per owning controller at a
 *       time, each next one only when the owner is back at full strength; then the old place is collected (host
 *       copies outside the target namespace, or all of them for private mode; the agents when leaving private).</li>
 *   <li><b>SwitchBoundary</b>: boundary objects the target mode does not render are deleted, and
 *       {@code status.mode} and {@code status.hostNamespace} switch.</li>
 *   <li><b>Cleanup</b>: the tenant's own namespace when moving to shared (kept, with a {@code Skip}, when it holds
 *       objects that are not tenantplane's), or the node mirrors when moving to private.</li>
 * </ol>
 *
 * <p>A migration is rejected before any step when the target cannot work: dedicated mode without
 * {@code spec.nodePlacement} in the profile, private mode with a profile that shuts the agents out, a target
 * namespace held by someone else ({@value Rejection#INVALID_TARGET}); or when something cannot move safely: Pods
 * without a controller that would have to be rescheduled, or volume claims whose data would be left behind
 * ({@value Rejection#BLOCKED}).
 */
public final class MigrationPlanner {

    private final Planner syncPlanner = Planner.forMove();
    private final ControlPlaneRenderer controlPlane;
    private final BiFunction<TenantCluster, IsolationProfile, List<JsonObject>> boundary;
    private final Agents agents;

    /** A planner with the default renderers; it holds no state, so one instance can serve every tenant and thread. */
    public MigrationPlanner() {
        this(new ControlPlaneRenderer(), new IsolationRenderer()::render);
    }

    /** A planner rendering control planes (and the agents' image) with {@code controlPlane}, e.g. for an image mirror. */
    public MigrationPlanner(ControlPlaneRenderer controlPlane) {
        this(controlPlane, new IsolationRenderer()::render);
    }

    MigrationPlanner(ControlPlaneRenderer controlPlane,
                     BiFunction<TenantCluster, IsolationProfile, List<JsonObject>> boundary) {
        this.controlPlane = Objects.requireNonNull(controlPlane, "controlPlane");
        this.boundary = Objects.requireNonNull(boundary, "boundary");
        this.agents = new Agents(controlPlane);
    }

    /** The migration plan for {@code snapshot}; {@link MigrationPlan#needed()} is false when the tenant is in place. */
    public MigrationPlan plan(MigrationSnapshot snapshot) {
        Objects.requireNonNull(snapshot, "snapshot");
        return new Run(snapshot).plan();
    }

    /** The tenant's own host namespace, used in dedicated and private mode. */
    static String ownNamespace(TenantCluster tc) {
        if (tc.spec() != null && tc.spec().hostNamespace() != null) {
            return tc.spec().hostNamespace();
        }
        return HostNames.clusterScopedHostName(tc.namespace(), tc.tenant());
    }

    /** One planning. */
    /** The writes into the target namespace, and the Pods whose copies wait for an address. */
    private record TargetSync(List<StepDecision> writes, List<String> waiting) {
    }

    private final class Run {
        private final MigrationSnapshot s;
        private final TenantCluster tc;
        private final String tenant;
        private final String cns;
        private final String own;
        private final Mode target;
        private final String tns;

        Run(MigrationSnapshot s) {
            this.s = s;
            this.tc = s.cluster();
            this.tenant = tc.tenant();
            this.cns = tc.namespace();
            this.own = ownNamespace(tc);
            this.target = tc.mode();
            this.tns = target == Mode.SHARED ? cns : own;
        }

        MigrationPlan plan() {
            Mode current = tc.status() == null ? null : tc.status().mode();
            MigrationState recorded = s.state();
            MigrationState state;
            Decision reversal = null;
            if (recorded == null) {
                if (current == null || current == target) {
                    return MigrationPlan.none(cns, tenant, target);
                }
                state = new MigrationState(current, target, Step.PREPARE_TARGET, null);
            } else if (recorded.to() == target) {
                state = recorded;
            } else {
                state = new MigrationState(recorded.to(), target, Step.PREPARE_TARGET, null);
                boolean back = recorded.from() == target;
                reversal = Decision.skip(TenantCluster.KIND, null, new Decision.HostRef(cns, tenant),
                        back ? Reasons.MIGRATION_REVERSED : Reasons.MIGRATION_REDIRECTED,
                        "spec.mode changed to " + target.value() + " while tenant " + tenant + " was moving "
                                + recorded.from().value() + " -> " + recorded.to().value() + " at step "
                                + recorded.step().display() + "; " + (back ? "turning back" : "changing course")
                                + " from there: what the " + recorded.to().value() + " place already holds is "
                                + "collected and the workloads end up in " + target.value() + " mode in " + tns
                                + ", without redoing what is already in place", null);
            }
            Rejection rejection = reject(state);
            if (rejection != null) {
                return new MigrationPlan(cns, tenant, state.from(), target, state, reversal, rejection, List.of(),
                        List.of());
            }
            World w = new World(s.hostObjects(), s.tenantObjects());
            List<WorkloadImpact> impacts = impacts(w);
            List<MigrationStep> steps = new ArrayList<>();
            for (Step step : Step.values()) {
                if (step.ordinal() < state.step().ordinal()) {
                    continue;
                }
                MigrationStep planned = switch (step) {
                    case PREPARE_TARGET -> prepare(w);
                    case MOVE_WORKLOADS -> move(w);
                    case SWITCH_BOUNDARY -> switchBoundary(w);
                    case CLEANUP -> cleanup(w);
                };
                steps.add(planned);
            }
            Rejection lost = volumesLeftBehind(steps);
            if (lost != null) {
                return new MigrationPlan(cns, tenant, state.from(), target, state, reversal, lost, List.of(),
                        List.of());
            }
            return new MigrationPlan(cns, tenant, state.from(), target, state, reversal, null, steps, impacts);
        }

        // ---- rejection -------------------------------------------------------------------------------------------

        private Rejection reject(MigrationState state) {
            IsolationProfile p = s.profile();
            String profileField = "IsolationProfile " + p.id();
            if (target == Mode.DEDICATED) {
                IsolationProfile.NodePlacement np = p.spec() == null ? null : p.spec().nodePlacement();
                if (np == null || np.nodeSelector().isEmpty() && np.tolerations().isEmpty()) {
                    return new Rejection(Rejection.INVALID_TARGET, profileField + " spec.nodePlacement",
                            "dedicated mode runs tenant " + tenant + "'s pods on the profile's own nodes, but "
                                    + profileField + " has no spec.nodePlacement (nodeSelector or tolerations); add "
                                    + "one, or reference a profile that has it");
                }
            }
            List<Problem> problems = new ArrayList<>(p.validate());
            problems.addAll(p.validateFor(tc));
            if (!problems.isEmpty()) {
                Problem first = problems.get(0);
                String field = first.field() != null && first.field().startsWith("spec.mode")
                        ? "TenantCluster " + tc.id() + " " + first.field() : profileField + " " + first.field();
                return new Rejection(Rejection.INVALID_TARGET, field, first.message());
            }
            List<Problem> own = tc.validate();
            if (!own.isEmpty()) {
                return new Rejection(Rejection.INVALID_TARGET, "TenantCluster " + tc.id() + " " + own.get(0).field(),
                        own.get(0).message());
            }
            if (target != Mode.SHARED) {
                JsonObject ns = host("Namespace", null, this.own);
                if (ns != null && !ours(ns)) {
                    return new Rejection(Rejection.INVALID_TARGET, "TenantCluster " + tc.id() + " spec.hostNamespace",
                            "namespace " + this.own + " exists and is not tenantplane's namespace for tenant " + tenant
                                    + "; set spec.hostNamespace to a namespace that does not exist yet");
                }
            }
            World w = new World(s.hostObjects(), s.tenantObjects());
            List<String> bare = new ArrayList<>();
            for (JsonObject pod : oldPods(w)) {
                if (owner(pod) == null) {
                    bare.add(Json.string(pod, "metadata", "namespace") + "/" + Json.string(pod, "metadata", "name"));
                }
            }
            if (!bare.isEmpty()) {
                return new Rejection(Rejection.BLOCKED, "Pod " + bare.get(0),
                        "moving " + (target == Mode.PRIVATE ? "into" : "out of") + " private mode reschedules every "
                                + "Pod, and Pods without a controller (" + String.join(", ", bare) + ") would be "
                                + "deleted and not come back; run them under a Deployment, StatefulSet or Job, or "
                                + "delete them, then the migration starts");
            }
            return null;
        }

        private Rejection volumesLeftBehind(List<MigrationStep> steps) {
            List<String> claims = new ArrayList<>();
            for (MigrationStep st : steps) {
                for (StepDecision d : st.decisions()) {
                    Decision x = d.decision();
                    if (d.api() == StepDecision.Api.HOST && x.action() == Action.DELETE
                            && "PersistentVolumeClaim".equals(x.kind()) && x.observed() != null
                            && "Bound".equals(Json.string(x.observed(), "status", "phase"))) {
                        claims.add(x.host().namespace() + "/" + x.host().name());
                    }
                }
            }
            if (claims.isEmpty()) {
                return null;
            }
            return new Rejection(Rejection.BLOCKED, "PersistentVolumeClaim " + claims.get(0),
                    "the migration would delete bound volume claims " + String.join(", ", claims) + " and tenantplane "
                            + "does not copy volume data between namespaces or into the tenant's agents; move the "
                            + "data (e.g. back it up and restore it after the move) and delete the claims in the "
                            + "tenant, then the migration starts");
        }

        // ---- steps -----------------------------------------------------------------------------------------------

        private MigrationStep prepare(World w) {
            List<StepDecision> ds = new ArrayList<>();
            List<JsonObject> rendered = new ArrayList<>();
            for (JsonObject o : boundary.apply(tc, s.profile())) {
                if ("Namespace".equals(Json.string(o, "kind")) && cns.equals(Json.string(o, "metadata", "name"))) {
                    continue; // the shared namespace belongs to the platform team; provisioning keeps its labels
                }
                rendered.add(o);
            }
            for (JsonObject o : rendered) {
                ds.add(ensure(w, o, "Namespace".equals(Json.string(o, "kind"))
                                ? Reasons.TARGET_NAMESPACE : Reasons.TARGET_BOUNDARY,
                        "part of tenant " + tenant + "'s " + target.value() + "-mode boundary in " + tns + ": "
                                + Json.annotations(o).getOrDefault(ReverseMapping.REASON, "rendered from the profile")));
            }
            for (JsonObject node : sortedByName(w.tenantOfKind("Node"))) {
                if (!NodeMirror.isMirror(node)) {
                    continue;
                }
                boolean cordoned = Json.annotations(node).containsKey(NodeMirror.CORDONED_BY);
                if (target == Mode.PRIVATE && !cordoned) {
                    JsonObject desired = node.deepCopy();
                    Json.child(desired, "spec").addProperty("unschedulable", true);
                    Json.child(desired, "metadata", "annotations").addProperty(NodeMirror.CORDONED_BY, "migration");
                    desired.remove("status");
                    ds.add(tenantWrite(Action.UPDATE, node, desired, Reasons.MIRROR_CORDONED, "node mirror "
                            + name(node) + " stands for a host node; the tenant's own scheduler, on from now, must "
                            + "not place pods there"));
                } else if (target != Mode.PRIVATE && cordoned) {
                    JsonObject desired = node.deepCopy();
                    Json.child(desired, "spec").remove("unschedulable");
                    Json.child(desired, "metadata", "annotations").remove(NodeMirror.CORDONED_BY);
                    desired.remove("status");
                    ds.add(tenantWrite(Action.UPDATE, node, desired, Reasons.MIRROR_UNCORDONED,
                            "node mirror " + name(node)
                            + " was cordoned by a migration to private mode that is turning back"));
                }
            }
            StepDecision cp = controlPlaneUpdate(w);
            if (cp != null) {
                ds.add(cp);
            }
            if (target != Mode.PRIVATE && w.host("Service", cns, ControlPlaneNames.of(tc).dnsService()) == null) {
                // Out of private mode (which retired it), the copies need the tenant DNS, as provisioning renders it
                // for shared and dedicated mode: it comes first, and the copies wait for its address.
                for (JsonObject o : TenantDns.render(tc)) {
                    ds.add(ensure(w, o, Reasons.TARGET_DNS, "tenant " + tenant + "'s DNS for its synced Pods: "
                            + Json.annotations(o).getOrDefault(ReverseMapping.REASON, "rendered for " + target.value()
                            + " mode")));
                }
            }
            List<Wait> waits = new ArrayList<>();
            if (target == Mode.PRIVATE) {
                for (JsonObject o : agents.render(tc, tns)) {
                    ds.add(ensure(w, o, Reasons.AGENTS_STARTED,
                            Json.annotations(o).getOrDefault(ReverseMapping.REASON, "")));
                }
            }
            w.applyAll(ds);
            if (target == Mode.PRIVATE) {
                waits.add(agentsReady(w));
            }
            String summary = switch (target) {
                case SHARED -> "keep tenant " + tenant + "'s boundary in the shared namespace " + cns
                        + " and run the control plane without scheduler and agents";
                case DEDICATED -> "create tenant " + tenant + "'s own namespace " + own + " with its boundary and "
                        + "node placement " + placement();
                case PRIVATE -> "create " + own + " with its boundary, cordon the node mirrors, turn the control "
                        + "plane's scheduler on (StatefulSet updated in place, datastore kept) and start "
                        + Agents.REPLICAS + " k3s agents";
            };
            return new MigrationStep(Step.PREPARE_TARGET, summary, List.of(new Batch(ds, waits)));
        }

        private MigrationStep move(World w) {
            List<Batch> batches = new ArrayList<>();
            Set<String> agentNodes = agentNodes(w);
            // Tenant Pods that were moved away (deleted) wait in Terminating for a kubelet; those outside the agents
            // have none: once their host copy is gone they are finalized, as that kubelet would.
            List<StepDecision> finalize = finalizations(w, agentNodes);
            if (!finalize.isEmpty()) {
                w.applyAll(finalize);
                batches.add(new Batch(finalize, List.of()));
            }
            if (target != Mode.PRIVATE) {
                TargetSync target = syncTarget(w, agentNodes);
                List<StepDecision> sync = target.writes();
                w.applyAll(sync);
                List<Wait> waits = new ArrayList<>();
                waits.add(copiesReady(w, sync, target.waiting()));
                Wait owners = ownersAtStrength(w);
                if (owners != null) {
                    waits.add(owners);
                }
                batches.add(new Batch(sync, waits));
            } else {
                List<Wait> waits = new ArrayList<>();
                waits.add(podsOnAgents(w));
                Wait owners = ownersAtStrength(w);
                if (owners != null) {
                    waits.add(owners);
                }
                batches.add(new Batch(List.of(), waits));
            }
            for (List<JsonObject> round : rounds(oldPods(w))) {
                List<StepDecision> evictions = new ArrayList<>();
                for (JsonObject pod : round) {
                    Map<String, String> owner = owner(pod);
                    evictions.add(tenantWrite(Action.DELETE, pod, null,
                            target == Mode.PRIVATE ? Reasons.RESCHEDULE_ON_AGENTS : Reasons.RESCHEDULE_ON_HOST,
                            "Pod " + Json.string(pod, "metadata", "namespace") + "/" + name(pod) + " runs on "
                                    + (target == Mode.PRIVATE ? "the host (node " : "agent node ")
                                    + Json.string(pod, "spec", "nodeName") + (target == Mode.PRIVATE ? ")" : "")
                                    + "; its " + owner.get("kind") + " " + owner.get("name") + " recreates it and "
                                    + (target == Mode.PRIVATE ? "the tenant's scheduler places it on an agent"
                                    : "tenantplane syncs it to " + tns)
                                    + "; the next Pod of that owner goes only when this one's replacement is Ready"));
                    String hostPod = HostNames.hostName(name(pod), Json.string(pod, "metadata", "namespace"), tenant);
                    JsonObject copy = target != Mode.PRIVATE ? null
                            : w.host("Pod", cns, hostPod) != null ? w.host("Pod", cns, hostPod)
                            : w.host("Pod", own, hostPod);
                    if (copy != null && ours(copy)) {
                        // The copy stops with the tenant Pod's grace period; the tenant Pod is finalized once it is
                        // gone.
                        JsonObject options = new JsonObject();
                        JsonElement grace = Json.object(pod, "spec") == null ? null
                                : Json.object(pod, "spec").get("terminationGracePeriodSeconds");
                        options.addProperty("gracePeriodSeconds", grace == null || grace.isJsonNull() ? 30
                                : grace.getAsLong());
                        StepDecision d = hostDelete(copy, Reasons.RESCHEDULE_ON_AGENTS, "host copy of Pod "
                                + Json.string(pod, "metadata", "namespace") + "/" + name(pod) + ": stops with the "
                                + "tenant Pod's grace period (" + options.get("gracePeriodSeconds") + " s); the tenant "
                                + "Pod is finalized once it is gone");
                        evictions.add(new StepDecision(d.api(), Decision.delete("Pod",
                                d.decision().source(), d.decision().host(), d.decision().reason(),
                                d.decision().message(), options, copy)));
                    }
                }
                w.applyAll(evictions);
                List<Wait> waits = new ArrayList<>();
                Wait owners = ownersAtStrength(w);
                if (owners != null) {
                    waits.add(owners);
                }
                batches.add(new Batch(evictions, waits));
            }
            List<StepDecision> collect = collect(w, agentNodes);
            w.applyAll(collect);
            batches.add(new Batch(collect, List.of()));
            String summary = switch (target) {
                case PRIVATE -> "let the tenant's scheduler place its Pods on the agents (rescheduling the Pods that "
                        + "run on the host, one per owner at a time), then delete every synced host copy";
                default -> "copy the synced objects into " + tns + ", wait until the Pods there are Running and "
                        + "Ready" + (agentNodes.isEmpty() ? "" : " (rescheduling the Pods on the agents, one per "
                        + "owner at a time)") + ", then collect the old place";
            };
            return new MigrationStep(Step.MOVE_WORKLOADS, summary, batches);
        }

        private MigrationStep switchBoundary(World w) {
            Set<String> wanted = new LinkedHashSet<>();
            for (JsonObject o : boundary.apply(tc, s.profile())) {
                wanted.add(key(o));
            }
            List<StepDecision> ds = new ArrayList<>();
            for (JsonObject o : World.sorted(inPlaces(w))) {
                String component = Json.labels(o).get(ControlPlaneRenderer.COMPONENT_LABEL);
                if (!IsolationRenderer.COMPONENT.equals(component) || !ours(o) || wanted.contains(key(o))) {
                    continue;
                }
                ds.add(hostDelete(o, Reasons.BOUNDARY_RETIRED,
                        "part of the boundary of tenant " + tenant + "'s old place ("
                        + Json.string(o, "metadata", "namespace") + "); the " + target.value() + "-mode boundary in "
                        + tns + " replaces it"));
            }
            String currentNs = tc.status() == null ? null : tc.status().hostNamespace();
            Mode currentMode = tc.status() == null ? null : tc.status().mode();
            JsonObject desired = new JsonObject();
            JsonObject st = Json.child(desired, "status");
            st.addProperty("mode", target.value());
            st.addProperty("hostNamespace", tns);
            boolean same = currentMode == target && tns.equals(currentNs);
            String why = "status.mode " + (currentMode == null ? "-" : currentMode.value()) + " -> " + target.value()
                    + ", status.hostNamespace " + (currentNs == null ? "-" : currentNs) + " -> " + tns
                    + (target == Mode.PRIVATE ? ": from now on nothing is synced, the tenant's agents run its "
                    + "workloads" : ": from now on the tenant is synced into " + tns);
            // The TenantCluster as this plan read it; the runner writes over the one it reads when it gets there.
            JsonObject read = tc.toJson();
            Decision.HostRef ref = new Decision.HostRef(cns, tenant);
            ds.add(new StepDecision(StepDecision.Api.STATUS, same
                    ? Decision.unchanged(TenantCluster.KIND, null, ref, Reasons.MODE_SWITCHED, why, desired, read)
                    : Decision.update(TenantCluster.KIND, null, ref, Reasons.MODE_SWITCHED, why, desired, read)));
            w.applyAll(ds);
            return new MigrationStep(Step.SWITCH_BOUNDARY, "retire the old place's boundary and switch status.mode to "
                    + target.value(), List.of(new Batch(ds, List.of())));
        }

        private MigrationStep cleanup(World w) {
            List<StepDecision> ds = new ArrayList<>();
            String summary;
            if (target == Mode.SHARED) {
                JsonObject ns = w.host("Namespace", null, own);
                summary = "delete tenant " + tenant + "'s own namespace " + own;
                if (ns != null && ours(ns)) {
                    List<String> foreign = w.hostIn(own).stream().filter(o -> !ours(o) && !hostDefault(o))
                            .map(o -> Json.string(o, "kind") + " " + name(o)).sorted().toList();
                    if (foreign.isEmpty()) {
                        ds.add(hostDelete(ns, Reasons.PLACEMENT_RETIRED,
                                "tenant " + tenant + "'s own namespace is empty of "
                                + "its workloads and boundary; deleting it removes what is left"));
                    } else {
                        ds.add(new StepDecision(StepDecision.Api.HOST, Decision.skip("Namespace", null,
                                new Decision.HostRef(null, own), Reasons.NAMESPACE_KEPT, "namespace " + own + " holds "
                                + "objects tenantplane does not own (" + String.join(", ", foreign) + "); it is "
                                + "kept: delete them, or the namespace, yourself", ns)));
                    }
                }
            } else if (target == Mode.PRIVATE) {
                summary = "delete the node mirrors: in private mode the tenant's Nodes are its agents";
                for (JsonObject node : sortedByName(w.tenantOfKind("Node"))) {
                    if (NodeMirror.isMirror(node)) {
                        ds.add(tenantWrite(Action.DELETE, node, null, Reasons.MIRROR_RETIRED,
                                "node mirror " + name(node)
                                + " stood for a host node; no tenant Pod runs there any more"));
                    }
                }
            } else {
                summary = "nothing is left in the old place";
            }
            w.applyAll(ds);
            return new MigrationStep(Step.CLEANUP, summary, List.of(new Batch(ds, List.of())));
        }

        // ---- parts -----------------------------------------------------------------------------------------------

        private StepDecision controlPlaneUpdate(World w) {
            JsonObject rendered;
            try {
                rendered = controlPlane.render(tc).stream()
                        .filter(o -> "StatefulSet".equals(Json.string(o, "kind"))).findFirst().orElseThrow();
            } catch (InvalidResourceException e) {
                return null; // reject() has refused an invalid TenantCluster already
            }
            ControlPlaneNames n = ControlPlaneNames.of(tc);
            JsonObject observed = w.host("StatefulSet", cns, n.statefulSet());
            if (observed == null) {
                return null; // not provisioned yet: provisioning renders it for the target mode directly
            }
            JsonObject wantTemplate = Json.object(rendered, "spec", "template");
            JsonObject haveTemplate = Json.object(observed, "spec", "template");
            boolean same = haveTemplate != null && Subset.holds(wantTemplate, haveTemplate);
            String msg = "k3s server flags for " + target.value() + " mode ("
                    + (target == Mode.PRIVATE ? "scheduler, CoreDNS and network policy on, for the tenant's own agents"
                    : "scheduler and agent tunnel off: the host runs the pods") + "); StatefulSet " + n.statefulSet()
                    + " is updated in place: its volume claim template and the datastore claims (data-"
                    + n.statefulSet() + "-N) are kept, the tenant API restarts once and keeps every object";
            if (same) {
                return new StepDecision(StepDecision.Api.HOST, Decision.unchanged("StatefulSet", null,
                        new Decision.HostRef(cns, n.statefulSet()), Reasons.ALREADY_IN_PLACE,
                                "k3s server flags already fit "
                        + target.value() + " mode; StatefulSet " + n.statefulSet() + " is left as it is", observed,
                        observed));
            }
            JsonObject desired = observed.deepCopy();
            desired.remove("status");
            Json.child(desired, "spec").add("template", wantTemplate.deepCopy());
            JsonObject ann = Json.child(desired, "metadata", "annotations");
            ann.addProperty(ReverseMapping.REASON, Json.annotations(rendered).getOrDefault(ReverseMapping.REASON, ""));
            return new StepDecision(StepDecision.Api.HOST, Decision.update("StatefulSet", null,
                    new Decision.HostRef(cns, n.statefulSet()), Reasons.CONTROL_PLANE_RECONFIGURED,
                            msg, desired, observed));
        }

        /**
         * The sync planner's decisions for the target namespace, with the token Secrets of the copies before them
         * (Skips left out: they say nothing about the move), and the Pods whose copy waits for the tenant API's or
         * DNS's address.
         */
        private TargetSync syncTarget(World w, Set<String> agentNodes) {
            List<JsonObject> tenantObjects = new ArrayList<>();
            for (JsonObject o : w.tenantObjects()) {
                if ("Pod".equals(Json.string(o, "kind")) && onNodes(o, agentNodes) && !terminal(o)) {
                    continue; // still running on an agent: rescheduled below, its replacement is synced then
                }
                tenantObjects.add(o);
            }
            List<JsonObject> targetHost = w.hostIn(tns);
            Snapshot snap = new Snapshot(tenant, tns, s.policy(), options(), tenantObjects, targetHost);
            String old = tns.equals(cns) ? own : cns;
            List<StepDecision> out = new ArrayList<>();
            List<String> waiting = new ArrayList<>();
            Plan plan = syncPlanner.plan(snap);
            // The copies mount their tenant token from a Secret in the target namespace, as a pass's Pods do: the
            // Secrets they lack come first (the runner mints their tokens when it writes them); refreshing them is
            // the passes' work once the tenant runs there, so no clock is needed here.
            List<Decision> tokens = TenantTokens.plan(tenant, tns, plan, tenantObjects, targetHost, targetHost,
                    Instant.EPOCH, false).issues().stream().map(TenantTokens.Issue::decision).toList();
            boolean tokensPlaced = false;
            for (Decision d : plan.decisions()) {
                if (d.action() == Action.SKIP) {
                    if (d.kind().equals("Pod") && d.host() != null && (d.reason().equals(Reasons.TENANT_API_PENDING)
                            || d.reason().equals(Reasons.TENANT_DNS_PENDING))) {
                        // Its copy waits for an address; the old copy must not be collected before it runs.
                        waiting.add("Pod " + d.host().namespace() + "/" + d.host().name() + " (" + d.reason()
                                + ")");
                    }
                    continue;
                }
                if (!tokensPlaced && d.kind().equals("Pod")) {
                    tokens.forEach(t -> out.add(new StepDecision(StepDecision.Api.HOST, t)));
                    tokensPlaced = true;
                }
                String ip = d.desired() == null ? null : Json.string(d.desired(), "spec", "clusterIP");
                JsonObject previous = d.action() == Action.CREATE && d.kind().equals("Service") && d.host() != null
                        && ip != null && !ip.equals("None") ? w.host("Service", old, d.host().name()) : null;
                if (previous != null && ours(previous)) {
                    // A ClusterIP belongs to one Service at a time: the old copy gives it up first, so that the tenant
                    // Service keeps its IP (and its identity) across the move.
                    out.add(hostDelete(previous, Reasons.CLUSTER_IP_MOVES,
                            "host copy of " + source(previous) + " in the "
                            + "old place gives up ClusterIP " + ip + " to its copy in " + tns + ", so the tenant "
                            + "Service keeps its IP; it routes to the Pods in " + tns + " as they become Ready"));
                }
                out.add(new StepDecision(StepDecision.Api.HOST, d));
            }
            return new TargetSync(out, waiting);
        }

        private TransformOptions options() {
            TransformOptions o = TransformOptions.forProfile(tenant, target == Mode.DEDICATED, s.profile(),
                    s.policy());
            if (target != Mode.PRIVATE) {
                // The copies reach the tenant API and DNS as the Pods of a pass do: the control plane stays in the
                // TenantCluster's namespace, so its Services there are the ones the copies use. A tenant that moves
                // has them; a plan from files without them names the API Service by its DNS name.
                ControlPlaneNames n = ControlPlaneNames.of(tc);
                o = o.withTenantApi(TransformOptions.TenantApi.fromServices(n.apiService() + "." + cns + ".svc",
                        host("Service", cns, n.apiService()), host("Service", cns, n.dnsService()), true));
            }
            return o;
        }

        private List<StepDecision> collect(World w, Set<String> agentNodes) {
            List<JsonObject> copies = new ArrayList<>();
            for (JsonObject o : inPlaces(w)) {
                if (!(ReverseMapping.inspect(o) instanceof Ownership.Managed m) || !m.source().tenant().equals(tenant)) {
                    continue;
                }
                if (target != Mode.PRIVATE && tns.equals(Json.string(o, "metadata", "namespace"))) {
                    continue;
                }
                copies.add(o);
            }
            copies.sort(Comparator.comparing((JsonObject o) -> !"Pod".equals(Json.string(o, "kind")))
                    .thenComparing(o -> Json.string(o, "kind"))
                    .thenComparing(o -> Json.string(o, "metadata", "namespace"))
                    .thenComparing(o -> Json.string(o, "metadata", "name")));
            List<StepDecision> out = new ArrayList<>();
            for (JsonObject o : copies) {
                out.add(target == Mode.PRIVATE
                        ? hostDelete(o, Reasons.NOT_SYNCED_IN_PRIVATE_MODE,
                                "host copy of " + source(o) + "; in private mode "
                        + "nothing is synced: the tenant's agents run its workloads")
                        : hostDelete(o, Reasons.MOVED_AWAY,
                                "host copy of " + source(o) + " in the old place; its copy in "
                        + tns + " replaces it"));
            }
            // The tenant token Secrets of the Pods deleted above go with them.
            for (JsonObject o : World.sorted(inPlaces(w))) {
                if (!TenantTokens.isTokenSecret(o, tenant)
                        || target != Mode.PRIVATE && tns.equals(Json.string(o, "metadata", "namespace"))) {
                    continue;
                }
                String pod = Json.annotations(o).get(TenantTokens.TOKEN_FOR);
                out.add(target == Mode.PRIVATE
                        ? hostDelete(o, Reasons.NOT_SYNCED_IN_PRIVATE_MODE, "tenant token Secret of host Pod " + pod
                                + "; in private mode nothing is synced: the tenant's agents run its workloads")
                        : hostDelete(o, Reasons.MOVED_AWAY, "tenant token Secret of host Pod " + pod
                                + " in the old place; the copies in " + tns + " mount their own"));
            }
            if (target != Mode.PRIVATE) {
                for (JsonObject o : World.sorted(inPlaces(w))) {
                    if (ours(o) && Agents.COMPONENT.equals(Json.labels(o).get(ControlPlaneRenderer.COMPONENT_LABEL))) {
                        out.add(hostDelete(o, Reasons.AGENTS_RETIRED, "part of tenant " + tenant + "'s k3s agents; in "
                                + target.value() + " mode the host runs the tenant's pods"));
                    }
                }
                for (JsonObject node : sortedByName(w.tenantOfKind("Node"))) {
                    if (agentNodes.contains(name(node))) {
                        out.add(tenantWrite(Action.DELETE, node, null, Reasons.AGENTS_RETIRED, "Node " + name(node)
                                + " was one of tenant " + tenant + "'s k3s agents, which are gone"));
                    }
                }
            }
            return out;
        }

        // ---- waits -----------------------------------------------------------------------------------------------

        private Wait agentsReady(World w) {
            List<String> pending = new ArrayList<>();
            JsonObject sts = w.host("StatefulSet", tns, Agents.name(tenant));
            long ready = sts == null ? 0 : Json.number(sts, 0, "status", "readyReplicas");
            if (ready < Agents.REPLICAS) {
                pending.add("StatefulSet " + tns + "/" + Agents.name(tenant) + ": " + ready + " of " + Agents.REPLICAS
                        + " agents Ready");
            }
            long nodes = w.tenantOfKind("Node").stream()
                    .filter(n -> tenant.equals(Json.labels(n).get(Agents.NODE_LABEL)) && condition(n, "Ready")).count();
            if (nodes < Agents.REPLICAS) {
                pending.add("tenant Nodes labelled " + Agents.NODE_LABEL + "=" + tenant + ": " + nodes + " of "
                        + Agents.REPLICAS + " Ready");
            }
            return new Wait("the k3s agents are Ready and registered as Nodes in the tenant API", pending);
        }

        private Wait copiesReady(World w, List<StepDecision> sync, List<String> waiting) {
            List<String> pending = new ArrayList<>(waiting);
            for (StepDecision d : sync) {
                Decision x = d.decision();
                if (!"Pod".equals(x.kind()) || !(x.action() == Action.CREATE || x.action() == Action.UPDATE
                        || x.action() == Action.UNCHANGED)) {
                    continue;
                }
                JsonObject src = x.source() == null ? null
                        : w.tenant("Pod", x.source().virtualNamespace(), x.source().name());
                if (src != null && terminal(src)) {
                    continue;
                }
                JsonObject copy = w.host("Pod", x.host().namespace(), x.host().name());
                if (copy == null || !runningAndReady(copy)) {
                    pending.add("Pod " + x.host().namespace() + "/" + x.host().name());
                }
            }
            return new Wait("the Pods copied to " + tns + " are Running and Ready on the host", pending);
        }

        private Wait podsOnAgents(World w) {
            Set<String> agentNodes = agentNodes(w);
            List<String> pending = new ArrayList<>();
            for (JsonObject pod : sortedByName(w.tenantOfKind("Pod"))) {
                if (terminal(pod) || oldPod(pod, agentNodes) || terminating(pod)) {
                    continue;
                }
                if (!onNodes(pod, agentNodes) || !runningAndReady(pod)) {
                    pending.add("Pod " + Json.string(pod, "metadata", "namespace") + "/" + name(pod));
                }
            }
            return new Wait("the tenant's rescheduled Pods are Running and Ready on its agents", pending);
        }

        /**
         * Each controller that owns a Pod still to be rescheduled must be at full strength before the next of its Pods
         * goes: as many Pods as it wants replicas, every rescheduled one Ready. Null when nothing is rescheduled.
         */
        private Wait ownersAtStrength(World w) {
            Set<String> agentNodes = agentNodes(w);
            if (target != Mode.PRIVATE && agentNodes.isEmpty()) {
                return null;
            }
            Map<String, List<JsonObject>> byOwner = podsByOwner(w);
            Map<String, String[]> owners = new TreeMap<>();
            for (String kind : List.of("ReplicaSet", "StatefulSet")) {
                for (JsonObject o : w.tenantOfKind(kind)) {
                    String ns = Json.string(o, "metadata", "namespace");
                    owners.put(ns + "/" + kind + "/" + name(o), new String[] {ns, kind, name(o)});
                }
            }
            for (List<JsonObject> pods : byOwner.values()) {
                JsonObject first = pods.get(0);
                Map<String, String> o = owner(first);
                String ns = Json.string(first, "metadata", "namespace");
                owners.putIfAbsent(ownerKey(first, o), new String[] {ns, o.get("kind"), o.get("name")});
            }
            List<String> pending = new ArrayList<>();
            for (Map.Entry<String, String[]> e : owners.entrySet()) {
                String[] o = e.getValue();
                List<JsonObject> pods = byOwner.getOrDefault(e.getKey(), List.of());
                long want = replicas(w, o[0], Map.of("kind", o[1], "name", o[2]), pods.size());
                long up = 0;
                for (JsonObject pod : pods) {
                    if (oldPod(pod, agentNodes) || (placed(w, pod, agentNodes) && runningAndReady(readiness(w, pod)))) {
                        up++;
                    }
                }
                if (up < want) {
                    pending.add(o[1] + " " + o[0] + "/" + o[2] + ": " + up + " of " + want + " Pods up");
                }
            }
            return new Wait("every controller of the tenant has all its Pods up (rescheduled ones Ready in the new "
                    + "place) before the next Pod moves", pending);
        }

        // ---- pods ------------------------------------------------------------------------------------------------

        private static boolean terminating(JsonObject pod) {
            return Json.object(pod, "metadata") != null && pod.getAsJsonObject("metadata").has("deletionTimestamp");
        }

        /**
         * The kubelet duty while moving: tenant Pods being deleted that are bound to a node no kubelet of the tenant
         * serves (a node mirror, not an agent) and whose host copy is gone ({@link PodLifecycle}).
         */
        private List<StepDecision> finalizations(World w, Set<String> agentNodes) {
            List<JsonObject> pods = w.tenantOfKind("Pod").stream()
                    .filter(p -> !agentNodes.contains(Json.string(p, "spec", "nodeName"))).toList();
            // A copy may be in the shared namespace or in the tenant's own one: a Pod is finalized when it has none.
            Set<String> inOwn = new java.util.HashSet<>();
            for (Decision d : PodLifecycle.finalizations(tenant, own, pods, w.hostIn(own))) {
                inOwn.add(Json.string(d.observed(), "metadata", "uid"));
            }
            List<StepDecision> out = new ArrayList<>();
            for (Decision d : PodLifecycle.finalizations(tenant, cns, pods, w.hostIn(cns))) {
                if (inOwn.contains(Json.string(d.observed(), "metadata", "uid"))) {
                    out.add(new StepDecision(StepDecision.Api.TENANT, d));
                }
            }
            return out;
        }

        /** Tenant Pods that run in the old place and must be rescheduled: on agents (leaving private) or on host nodes. */
        private List<JsonObject> oldPods(World w) {
            Set<String> agentNodes = agentNodes(w);
            return sortedByName(w.tenantOfKind("Pod")).stream().filter(p -> oldPod(p, agentNodes)).toList();
        }

        private boolean oldPod(JsonObject pod, Set<String> agentNodes) {
            if (terminal(pod) || Json.object(pod, "metadata") == null
                    || pod.getAsJsonObject("metadata").has("deletionTimestamp")) {
                return false;
            }
            String node = Json.string(pod, "spec", "nodeName");
            if (node == null || node.isEmpty()) {
                return false;
            }
            return target == Mode.PRIVATE ? !agentNodes.contains(node) : agentNodes.contains(node);
        }

        /** Whether a Pod that is not old runs in the new place yet. */
        private boolean placed(World w, JsonObject pod, Set<String> agentNodes) {
            if (target == Mode.PRIVATE) {
                return onNodes(pod, agentNodes);
            }
            return w.host("Pod", tns, HostNames.hostName(name(pod), Json.string(pod, "metadata", "namespace"),
                    tenant)) != null;
        }

        /** The object whose status tells whether a Pod in the new place is Ready: itself, or its host copy. */
        private JsonObject readiness(World w, JsonObject pod) {
            if (target == Mode.PRIVATE) {
                return pod;
            }
            return w.host("Pod", tns, HostNames.hostName(name(pod), Json.string(pod, "metadata", "namespace"), tenant));
        }

        private List<List<JsonObject>> rounds(List<JsonObject> old) {
            Map<String, List<JsonObject>> byOwner = new TreeMap<>();
            for (JsonObject pod : old) {
                Map<String, String> o = owner(pod);
                if (o != null) {
                    byOwner.computeIfAbsent(ownerKey(pod, o), k -> new ArrayList<>()).add(pod);
                }
            }
            List<List<JsonObject>> rounds = new ArrayList<>();
            for (List<JsonObject> pods : byOwner.values()) {
                for (int i = 0; i < pods.size(); i++) {
                    if (rounds.size() <= i) {
                        rounds.add(new ArrayList<>());
                    }
                    rounds.get(i).add(pods.get(i));
                }
            }
            return rounds;
        }

        private Map<String, List<JsonObject>> podsByOwner(World w) {
            Map<String, List<JsonObject>> out = new LinkedHashMap<>();
            for (JsonObject pod : sortedByName(w.tenantOfKind("Pod"))) {
                Map<String, String> o = owner(pod);
                if (o != null && !terminal(pod)) {
                    out.computeIfAbsent(ownerKey(pod, o), k -> new ArrayList<>()).add(pod);
                }
            }
            return out;
        }

        private long replicas(World w, String namespace, Map<String, String> owner, long fallback) {
            JsonObject o = w.tenant(owner.get("kind"), namespace, owner.get("name"));
            if (o == null) {
                return fallback;
            }
            JsonElement r = Json.object(o, "spec") == null ? null : o.getAsJsonObject("spec").get("replicas");
            return r != null && r.isJsonPrimitive() ? r.getAsLong() : fallback;
        }

        private Set<String> agentNodes(World w) {
            Set<String> out = new LinkedHashSet<>();
            for (JsonObject n : w.tenantOfKind("Node")) {
                if (tenant.equals(Json.labels(n).get(Agents.NODE_LABEL))) {
                    out.add(name(n));
                }
            }
            return out;
        }

        // ---- impacts ---------------------------------------------------------------------------------------------

        private List<WorkloadImpact> impacts(World w) {
            List<WorkloadImpact> out = new ArrayList<>();
            Set<String> agentNodes = agentNodes(w);
            boolean reschedules = target == Mode.PRIVATE || !agentNodes.isEmpty();
            Map<String, List<JsonObject>> byOwner = podsByOwner(w);
            for (JsonObject pod : sortedByName(w.tenantOfKind("Pod"))) {
                if (terminal(pod)) {
                    continue;
                }
                String vns = Json.string(pod, "metadata", "namespace");
                Map<String, String> o = owner(pod);
                String where = target == Mode.PRIVATE ? "on one of the tenant's agents" : "in " + tns;
                if (reschedules && oldPod(pod, agentNodes)) {
                    long want = replicas(w, vns, o, byOwner.getOrDefault(ownerKey(pod, o), List.of()).size());
                    String again = "deleted in the tenant API and recreated by its " + o.get("kind") + " "
                            + o.get("name") + " " + where + ("StatefulSet".equals(o.get("kind"))
                            ? " under the same name" : " under a new name") + " and uid; ";
                    if (want > 1) {
                        out.add(new WorkloadImpact("Pod", vns, name(pod), "reduced capacity", again + "one Pod of "
                                + o.get("name") + " at a time, so " + (want - 1) + " of " + want + " replicas keep "
                                + "serving while it moves"));
                    } else {
                        out.add(new WorkloadImpact("Pod", vns, name(pod), "until replacement Ready", again + "its only "
                                + "replica is down from the deletion until the replacement is Ready"));
                    }
                } else if (target == Mode.PRIVATE) {
                    out.add(new WorkloadImpact("Pod", vns, name(pod), "none", "already runs on the tenant's agents or "
                            + "waits for the tenant's scheduler; its host copy, if any, is deleted"));
                } else {
                    String placement = target == Mode.DEDICATED ? " on nodes matching " + placement() : "";
                    out.add(new WorkloadImpact("Pod", vns, name(pod), "overlap", "a second copy starts in " + tns
                            + placement + "; the copy in the old place is deleted once the new one is Ready: no "
                            + "downtime, but for a moment two copies run (" + (o == null ? "a bare Pod" : "one of "
                            + o.get("kind") + " " + o.get("name")) + ": anything that must run once, like a lock "
                            + "holder, sees a second instance), and the Pod's IP changes; the tenant Pod object is "
                            + "not changed"));
                }
            }
            for (JsonObject svc : sortedByName(w.tenantOfKind("Service"))) {
                String vns = Json.string(svc, "metadata", "namespace");
                if (!SyncRules.of(s.policy()).syncsToHost("Service", vns)
                        || Transformer.isTenantApiService(vns, name(svc))) {
                    continue;
                }
                String sees = target == Mode.PRIVATE
                        ? "its host copy is deleted; inside the tenant the Service is served by the agents' own "
                        + "proxy, from the Pods on the agents"
                        : "its host copy is created in " + tns + " before the Pods move and takes the cluster IP the "
                        + "old copy gives up just before, so the tenant Service keeps its IP (between the two writes "
                        + "the IP reaches no Pod); the host copy's name is in " + tns + " from then on, so anything on "
                        + "the host that used the old copy's DNS name must follow";
                out.add(new WorkloadImpact("Service", vns, name(svc), target == Mode.PRIVATE ? "none" : "brief gap",
                        sees));
            }
            return out;
        }

        private String placement() {
            IsolationProfile.NodePlacement np = s.profile().spec() == null ? null : s.profile().spec().nodePlacement();
            if (np == null) {
                return "(none)";
            }
            return np.nodeSelector().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(",", "{", "}"))
                    + (np.tolerations().isEmpty() ? "" : " with " + np.tolerations().size() + " toleration"
                    + (np.tolerations().size() == 1 ? "" : "s"));
        }

        // ---- helpers ---------------------------------------------------------------------------------------------

        private StepDecision ensure(World w, JsonObject desired, String reason, String message) {
            String kind = Json.string(desired, "kind");
            String ns = Json.string(desired, "metadata", "namespace");
            String name = Json.string(desired, "metadata", "name");
            JsonObject observed = w.host(kind, ns, name);
            Decision.HostRef ref = new Decision.HostRef(ns, name);
            // The provisioning rule, ownership first: a foreign object holding the name is a Conflict however much of
            // the rendered object it holds, and an object tenantplane only labels (the shared namespace) gets labels.
            Decision p = ProvisionPlan.decide(tenant, cns + "/" + tenant, desired, observed);
            Decision d = switch (p.action()) {
                case CREATE -> Decision.create(kind, null, ref, reason, message, p.desired());
                case UPDATE -> Decision.update(kind, null, ref, reason, message, p.desired(), observed);
                case UNCHANGED -> Decision.unchanged(kind, null, ref, Reasons.ALREADY_IN_PLACE, message,
                        p.desired() != null ? p.desired() : desired, observed);
                default -> p;
            };
            return new StepDecision(StepDecision.Api.HOST, d);
        }

        private StepDecision hostDelete(JsonObject o, String reason, String message) {
            Decision.SourceRef src = null;
            if (ReverseMapping.inspect(o) instanceof Ownership.Managed m) {
                src = new Decision.SourceRef(tenant, m.source().virtualNamespace(), m.source().name(), m.source().uid());
            }
            return new StepDecision(StepDecision.Api.HOST, Decision.delete(Json.string(o, "kind"), src,
                    Decision.HostRef.of(o), reason, message, null, o));
        }

        private StepDecision tenantWrite(Action action, JsonObject o, JsonObject desired, String reason, String message) {
            Decision.SourceRef src = Decision.SourceRef.of(tenant, o);
            Decision.HostRef ref = Decision.HostRef.of(o);
            String kind = Json.string(o, "kind");
            return new StepDecision(StepDecision.Api.TENANT, switch (action) {
                case UPDATE -> Decision.update(kind, src, ref, reason, message, desired, o);
                case DELETE -> Decision.delete(kind, src, ref, reason, message, desired, o);
                default -> throw new IllegalArgumentException("a tenant write is an Update or a Delete, not " + action);
            });
        }

        private List<JsonObject> inPlaces(World w) {
            List<JsonObject> out = new ArrayList<>(w.hostIn(cns));
            if (!own.equals(cns)) {
                out.addAll(w.hostIn(own));
            }
            return out;
        }

        private JsonObject host(String kind, String ns, String name) {
            for (JsonObject o : s.hostObjects()) {
                if (kind.equals(Json.string(o, "kind")) && Objects.equals(ns, Json.string(o, "metadata", "namespace"))
                        && name.equals(Json.string(o, "metadata", "name"))) {
                    return o;
                }
            }
            return null;
        }

        private boolean ours(JsonObject o) {
            Map<String, String> l = Json.labels(o);
            return ReverseMapping.MANAGED_BY_VALUE.equals(l.get(ReverseMapping.MANAGED_BY))
                    && tenant.equals(l.get(ReverseMapping.TENANT));
        }

        private String source(JsonObject hostCopy) {
            Map<String, String> a = Json.annotations(hostCopy);
            return a.get(ReverseMapping.SOURCE_KIND) + " " + (a.containsKey(ReverseMapping.SOURCE_NAMESPACE)
                    ? a.get(ReverseMapping.SOURCE_NAMESPACE) + "/" : "") + a.get(ReverseMapping.SOURCE_NAME);
        }
    }

    // ---- pure helpers over objects ------------------------------------------------------------------------------

    /** Objects a host namespace holds without anyone asking: they do not keep a namespace alive. */
    private static boolean hostDefault(JsonObject o) {
        String kind = Json.string(o, "kind");
        String name = Json.string(o, "metadata", "name");
        return "ServiceAccount".equals(kind) && "default".equals(name)
                || "ConfigMap".equals(kind) && "kube-root-ca.crt".equals(name);
    }

    private static String key(JsonObject o) {
        return Json.string(o, "kind") + "/" + Json.string(o, "metadata", "namespace") + "/"
                + Json.string(o, "metadata", "name");
    }

    private static String name(JsonObject o) {
        return Json.string(o, "metadata", "name");
    }

    private static List<JsonObject> sortedByName(List<JsonObject> objects) {
        return World.sorted(objects);
    }

    static boolean terminal(JsonObject pod) {
        String phase = Json.string(pod, "status", "phase");
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    static boolean runningAndReady(JsonObject pod) {
        return pod != null && "Running".equals(Json.string(pod, "status", "phase")) && condition(pod, "Ready");
    }

    static boolean condition(JsonObject o, String type) {
        JsonObject status = Json.object(o, "status");
        JsonElement cs = status == null ? null : status.get("conditions");
        if (cs == null || !cs.isJsonArray()) {
            return false;
        }
        for (JsonElement c : cs.getAsJsonArray()) {
            if (c.isJsonObject() && type.equals(Json.string(c.getAsJsonObject(), "type"))) {
                return "True".equals(Json.string(c.getAsJsonObject(), "status"));
            }
        }
        return false;
    }

    private static boolean onNodes(JsonObject pod, Set<String> nodes) {
        String node = Json.string(pod, "spec", "nodeName");
        return node != null && nodes.contains(node);
    }

    /** The controller owner reference of a Pod ({@code kind}, {@code name}, {@code uid}), or null for a bare Pod. */
    static Map<String, String> owner(JsonObject pod) {
        JsonObject meta = Json.object(pod, "metadata");
        JsonElement refs = meta == null ? null : meta.get("ownerReferences");
        if (refs == null || !refs.isJsonArray()) {
            return null;
        }
        for (JsonElement r : refs.getAsJsonArray()) {
            JsonObject ro = r.getAsJsonObject();
            JsonElement c = ro.get("controller");
            if (c != null && c.isJsonPrimitive() && c.getAsBoolean()) {
                Map<String, String> m = new LinkedHashMap<>();
                m.put("kind", Json.string(ro, "kind"));
                m.put("name", Json.string(ro, "name"));
                m.put("uid", Json.string(ro, "uid"));
                return m;
            }
        }
        return null;
    }

    private static String ownerKey(JsonObject pod, Map<String, String> owner) {
        return Json.string(pod, "metadata", "namespace") + "/" + owner.get("kind") + "/" + owner.get("name");
    }
}
