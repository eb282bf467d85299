package io.tenantplane.model;

import com.google.gson.JsonObject;
import com.google.gson.annotations.SerializedName;
import java.util.List;
import java.util.Map;

/**
 * {@code IsolationProfile.tenantplane.io/v1alpha1}: the boundary around a tenant's workloads on the host: network
 * policy, quota, container limits, Pod Security level, node placement, allowed Service types and the host
 * ServiceAccount tenant pods run as.
 *
 * <p>Namespaced: a TenantCluster references a profile in its own namespace, so each team manages its own profiles
 * (and RBAC on the namespace decides who may loosen them).
 *
 * <p>Records hold what was written; {@link #withDefaults()} fills in the defaults the CRD schema also declares:
 * default-deny ingress and egress, Pod Security {@code restricted} at version {@code latest}, Services of type
 * ClusterIP only. No quota or limits unless given.
 */
public record IsolationProfile(String apiVersion, String kind, ObjectMeta metadata,
                               @Required("add a spec (it may be empty: {} gives the secure defaults)") Spec spec,
                               Status status) {

    /** {@value}. */
    public static final String API_VERSION = TenantCluster.API_VERSION;
    /** {@value}. */
    public static final String KIND = "IsolationProfile";
    /** {@value}. */
    public static final String PLURAL = "isolationprofiles";
    /** Pod Security version when {@code spec.podSecurity.version} is not set. */
    public static final String DEFAULT_POD_SECURITY_VERSION = "latest";

    /**
     * {@code spec}.
     *
     * @param network            which traffic tenant pods may send and receive
     * @param quota              ResourceQuota hard limits for the host namespace
     * @param limits             LimitRange defaults and maximums for containers
     * @param podSecurity        the Pod Security Standard the host namespace enforces
     * @param nodePlacement      where tenant pods may run (dedicated mode)
     * @param services           which Service types a tenant may create
     * @param serviceAccountName an existing host ServiceAccount for tenant pods; when unset each tenant gets its own,
     *                           {@code <tenant>-workload}, with no token automount
     */
    public record Spec(Network network, Quota quota, Limits limits, PodSecurity podSecurity,
                       NodePlacement nodePlacement, Services services, String serviceAccountName) {
    }

    /**
     * {@code spec.network}. Traffic between tenants is never admitted, whatever is set here.
     *
     * @param defaultDeny           deny all ingress and/or egress except what {@code allow} and the lists admit;
     *                              both default to true
     * @param allow                 named allowances, each rendered as one NetworkPolicy
     * @param ingressFromCIDRs      extra sources admitted, as CIDRs (e.g. a load balancer's range)
     * @param egressToCIDRs         extra destinations admitted, as CIDRs (e.g. a database subnet)
     * @param ingressFromNamespaces host namespaces whose (non-tenant) pods may connect, e.g. an ingress controller's
     */
    public record Network(DefaultDeny defaultDeny, List<Allowance> allow,
                          List<String> ingressFromCIDRs,
                          List<String> egressToCIDRs,
                          List<String> ingressFromNamespaces) {
        public Network {
            allow = Copies.list(allow);
            ingressFromCIDRs = Copies.list(ingressFromCIDRs);
            egressToCIDRs = Copies.list(egressToCIDRs);
            ingressFromNamespaces = Copies.list(ingressFromNamespaces);
        }
    }

    /**
     * {@code spec.network.defaultDeny}. When a direction is not denied, tenant pods still admit nothing from (and send
     * nothing to) pods of other tenants: they are open to everything else.
     */
    public record DefaultDeny(Boolean ingress, Boolean egress) {
    }

    /** A named network allowance. */
    public enum Allowance {
        /** Egress to port 53 (UDP and TCP) in kube-system, for cluster DNS. */
        @SerializedName("dns") DNS,
        /** Egress to the tenant's own control plane (k3s API, port 6443). */
        @SerializedName("tenant-api") TENANT_API,
        /** Ingress from and egress to pods of the same tenant. */
        @SerializedName("same-tenant") SAME_TENANT,
        /** Egress to public addresses: 0.0.0.0/0 except private, shared, and link-local ranges (cloud metadata). */
        @SerializedName("internet-egress") INTERNET_EGRESS;

        /** The spelling in YAML, e.g. {@code tenant-api}. */
        public String value() {
            return Enums.jsonValue(this);
        }
    }

    /** {@code spec.quota}: ResourceQuota {@code hard} limits, e.g. {@code requests.cpu: "4"}, {@code pods: 50}. */
    public record Quota(@IntOrString Map<String, String> hard) {
        public Quota {
            hard = Copies.map(hard);
        }
    }

    /**
     * {@code spec.limits}: a LimitRange for containers.
     *
     * @param defaultRequest requests given to containers that set none
     * @param defaultLimit   (YAML {@code default}) limits given to containers that set none
     * @param max            the most a container may ask for
     */
    public record Limits(@IntOrString Map<String, String> defaultRequest,
                         @IntOrString @SerializedName("default") Map<String, String> defaultLimit,
                         @IntOrString Map<String, String> max) {
        public Limits {
            defaultRequest = Copies.map(defaultRequest);
            defaultLimit = Copies.map(defaultLimit);
            max = Copies.map(max);
        }
    }

    /**
     * {@code spec.podSecurity}.
     *
     * @param level   privileged, baseline or restricted (default)
     * @param version the Pod Security Standards version: {@code latest} (default) or {@code v1.<minor>}
     */
    public record PodSecurity(Level level, String version) {
    }

    /** A Pod Security Standards level. */
    public enum Level {
        /** Unrestricted. */
        @SerializedName("privileged") PRIVILEGED,
        /** Prevents known privilege escalations. */
        @SerializedName("baseline") BASELINE,
        /** Current pod hardening best practice. */
        @SerializedName("restricted") RESTRICTED;

        /** {@code privileged}, {@code baseline} or {@code restricted}. */
        public String value() {
            return Enums.jsonValue(this);
        }
    }

    /** {@code spec.nodePlacement}: added to tenant pods in dedicated mode. */
    public record NodePlacement(Map<String, String> nodeSelector, List<Toleration> tolerations) {
        public NodePlacement {
            nodeSelector = Copies.map(nodeSelector);
            tolerations = Copies.list(tolerations);
        }
    }

    /** A toleration, as in a Pod. */
    public record Toleration(String key, TolerationOperator operator, String value, TaintEffect effect,
                             Long tolerationSeconds) {
    }

    /** A toleration's operator. */
    public enum TolerationOperator {
        /** Matches any value of the key. */
        @SerializedName("Exists") EXISTS,
        /** Matches the given value. */
        @SerializedName("Equal") EQUAL;

        /** {@code Exists} or {@code Equal}. */
        public String value() {
            return Enums.jsonValue(this);
        }
    }

    /** A taint effect. */
    public enum TaintEffect {
        /** Not scheduled. */
        @SerializedName("NoSchedule") NO_SCHEDULE,
        /** Scheduled elsewhere if possible. */
        @SerializedName("PreferNoSchedule") PREFER_NO_SCHEDULE,
        /** Evicted. */
        @SerializedName("NoExecute") NO_EXECUTE;

        /** The Kubernetes spelling, e.g. {@code NoSchedule}. */
        public String value() {
            return Enums.jsonValue(this);
        }
    }

    /**
     * {@code spec.services}.
     *
     * @param allowedTypes the Service types a tenant may create; default ClusterIP only. Null when not written,
     *                     which is not the same as an (invalid) empty list.
     */
    public record Services(List<ServiceType> allowedTypes) {
        public Services {
            allowedTypes = Copies.listOrNull(allowedTypes);
        }
    }

    /** A Service type. */
    public enum ServiceType {
        /** Reachable inside the cluster only. */
        @SerializedName("ClusterIP") CLUSTER_IP,
        /** Opens a port on every node. */
        @SerializedName("NodePort") NODE_PORT,
        /** Asks the cloud for a load balancer. */
        @SerializedName("LoadBalancer") LOAD_BALANCER,
        /** A DNS alias to any name. */
        @SerializedName("ExternalName") EXTERNAL_NAME;

        /** The Kubernetes spelling, e.g. {@code ClusterIP}. */
        public String value() {
            return Enums.jsonValue(this);
        }
    }

    /** {@code status}, written by the controller: whether the profile is {@code Accepted}. */
    public record Status(Long observedGeneration, List<Condition> conditions) {
        public Status {
            conditions = Copies.list(conditions);
        }
    }

    /** An IsolationProfile with {@link #API_VERSION}, {@link #KIND} and no status. */
    public static IsolationProfile of(ObjectMeta metadata, Spec spec) {
        return new IsolationProfile(API_VERSION, KIND, metadata, spec, null);
    }

    /** Converts JSON into the record; wrong types are problems, unknown fields are ignored (see {@link #validate()}). */
    public static Parsed<IsolationProfile> fromJson(JsonObject json) {
        return Conversion.fromJson(json, IsolationProfile.class, API_VERSION, KIND);
    }

    /** This object as JSON; null fields and empty lists and maps are left out. */
    public JsonObject toJson() {
        return Conversion.toJson(this);
    }

    /** Every problem with this profile on its own. */
    public List<Problem> validate() {
        return IsolationProfileValidation.validate(this);
    }

    /**
     * Problems with using this profile for {@code tenantCluster}: it must be the profile the TenantCluster references,
     * in its namespace, and a private-mode tenant needs the {@code tenant-api} and {@code same-tenant} allowances
     * when egress is denied (its k3s agents join the tenant API and reach each other).
     */
    public List<Problem> validateFor(TenantCluster tenantCluster) {
        return IsolationProfileValidation.validateFor(this, tenantCluster);
    }

    /**
     * A copy with every default filled in: network default-deny both ways (no allowances unless listed), Pod Security
     * restricted at {@value #DEFAULT_POD_SECURITY_VERSION}, Service types [ClusterIP].
     */
    public IsolationProfile withDefaults() {
        Spec s = spec == null ? new Spec(null, null, null, null, null, null, null) : spec;
        Network n = s.network() == null ? new Network(null, null, null, null, null) : s.network();
        DefaultDeny dd = n.defaultDeny() == null ? new DefaultDeny(null, null) : n.defaultDeny();
        Network nd = new Network(new DefaultDeny(dd.ingress() == null || dd.ingress(), dd.egress() == null || dd.egress()),
                n.allow(), n.ingressFromCIDRs(), n.egressToCIDRs(), n.ingressFromNamespaces());
        PodSecurity ps = s.podSecurity() == null ? new PodSecurity(null, null) : s.podSecurity();
        PodSecurity psd = new PodSecurity(ps.level() == null ? Level.RESTRICTED : ps.level(),
                ps.version() == null ? DEFAULT_POD_SECURITY_VERSION : ps.version());
        Services sv = s.services() == null || s.services().allowedTypes() == null
                ? new Services(List.of(ServiceType.CLUSTER_IP)) : s.services();
        Spec sd = new Spec(nd, s.quota(), s.limits(), psd, s.nodePlacement(), sv, s.serviceAccountName());
        return new IsolationProfile(apiVersion == null ? API_VERSION : apiVersion, kind == null ? KIND : kind,
                metadata, sd, status);
    }

    /** The profile's name: {@code metadata.name}. */
    public String name() {
        return metadata == null ? null : metadata.name();
    }

    /** {@code <namespace>/<name>}, for messages. */
    public String id() {
        return (metadata == null ? null : metadata.namespace()) + "/" + name();
    }

    /** The Pod Security level in effect: {@code spec.podSecurity.level}, or restricted. */
    public Level podSecurityLevel() {
        return spec == null || spec.podSecurity() == null || spec.podSecurity().level() == null
                ? Level.RESTRICTED : spec.podSecurity().level();
    }

    /** True when a tenant may create Services of {@code type} (ClusterIP only, unless the profile lists more). */
    public boolean allowsServiceType(ServiceType type) {
        return withDefaults().spec().services().allowedTypes().contains(type);
    }

    /**
     * The host ServiceAccount tenant pods of {@code tenant} run as: {@code spec.serviceAccountName}, or
     * {@code <tenant>-workload} (created by the isolation renderer, with no token automount).
     */
    public String workloadServiceAccountName(String tenant) {
        return spec != null && spec.serviceAccountName() != null ? spec.serviceAccountName() : tenant + "-workload";
    }
}
