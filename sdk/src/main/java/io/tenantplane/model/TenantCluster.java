package io.tenantplane.model;

import com.google.gson.JsonObject;
import com.google.gson.annotations.SerializedName;
import io.tenantplane.naming.HostNames;
import java.util.List;
import java.util.Map;

/**
 * {@code TenantCluster.tenantplane.io/v1alpha1}: one tenant, with its own k3s control plane.
 *
 * <p>The tenant's name is {@code metadata.name} (a DNS-1035 label of at most {@value #MAX_NAME_LENGTH} characters, see
 * {@link #MAX_NAME_LENGTH}). The control plane always runs in {@code metadata.namespace}, whatever the mode, so that
 * its datastore volume survives a mode change. Tenant workloads run in the {@linkplain #hostNamespace() host
 * namespace}: {@code metadata.namespace} in shared mode, a namespace of the tenant's own otherwise.
 *
 * <p>The referenced IsolationProfile and SyncPolicy live in the same namespace as the TenantCluster.
 *
 * <p>Records hold what was written: an absent field is null (collections: empty). {@link #withDefaults()} fills in
 * the defaults, the same ones the CRD schema declares. Read with {@link #fromJson}, check with {@link #validate()}.
 */
public record TenantCluster(String apiVersion, String kind, ObjectMeta metadata,
                            @Required("add a spec with mode, isolationProfileRef and syncPolicyRef") Spec spec,
                            Status status) {

    /** {@value}. */
    public static final String GROUP = "tenantplane.io";
    /** {@value}. */
    public static final String API_VERSION = "tenantplane.io/v1alpha1";
    /** {@value}. */
    public static final String KIND = "TenantCluster";
    /** {@value}. */
    public static final String PLURAL = "tenantclusters";
    /**
     * The k3s version a control plane runs when {@code spec.controlPlane.version} is not set: the one place the
     * default version is pinned ({@code ControlPlaneRenderer} derives the image tag from it).
     */
    public static final String DEFAULT_K3S_VERSION = "v1.35.5+k3s1";
    /**
     * The tenant API's Service range when {@code spec.controlPlane.serviceCIDR} is not set and it holds the host's
     * range: kubeadm's default, which holds kind's ({@code 10.96.0.0/16}). It must hold the host's Service IPs (a
     * tenant Service takes its host copy's ClusterIP); on a host whose range it does not hold, provisioning renders
     * the /12 block around the host's {@code kubernetes} Service instead.
     */
    public static final String DEFAULT_SERVICE_CIDR = "10.96.0.0/12";
    /** Datastore volume size when {@code spec.controlPlane.datastore.storage} is not set. */
    public static final String DEFAULT_STORAGE = "5Gi";
    /**
     * Longest tenant name. Host object names are built from it: the control plane's headless Service is
     * {@code <tenant>-control-plane-headless} (a DNS-1035 label, at most 63 characters, so at most 40 for the tenant),
     * StatefulSet revision labels need {@code <tenant>-control-plane} within 52, and synced object names
     * {@code <name>-x-<namespace>-x-<tenant>} stay readable (unhashed) only when the tenant part is short.
     * 32 leaves room for all of them.
     */
    public static final int MAX_NAME_LENGTH = 32;

    /** The tenancy mode: where tenant workloads run. */
    public enum Mode {
        /** Synced into {@code metadata.namespace}, shared with other tenants, on shared nodes. */
        @SerializedName("shared") SHARED,
        /** Synced into a host namespace of the tenant's own, on the profile's nodes. */
        @SerializedName("dedicated") DEDICATED,
        /** Nothing synced: the tenant runs its own k3s agents as pods in its host namespace. */
        @SerializedName("private") PRIVATE;

        /** {@code shared}, {@code dedicated} or {@code private}. */
        public String value() {
            return Enums.jsonValue(this);
        }
    }

    /** The datastore of the control plane. */
    public enum DatastoreType {
        /** SQLite through kine: exactly one replica. */
        @SerializedName("sqlite") SQLITE,
        /** Embedded etcd: an odd number of replicas, 3 to 7. */
        @SerializedName("etcd") ETCD;

        /** {@code sqlite} or {@code etcd}. */
        public String value() {
            return Enums.jsonValue(this);
        }
    }

    /** {@code status.phase}. */
    public enum Phase {
        /** Accepted, nothing created yet. */
        @SerializedName("Pending") PENDING,
        /** The control plane is being created or is not ready yet. */
        @SerializedName("Provisioning") PROVISIONING,
        /** The control plane is ready and syncing. */
        @SerializedName("Ready") READY,
        /** Was ready, something is failing now; see the conditions. */
        @SerializedName("Degraded") DEGRADED,
        /** {@code spec.mode} changed and workloads are moving. */
        @SerializedName("Migrating") MIGRATING,
        /** Being deleted; tenantplane is removing what it created. */
        @SerializedName("Deleting") DELETING;

        /** The CamelCase value, e.g. {@code Ready}. */
        public String value() {
            return Enums.jsonValue(this);
        }
    }

    /**
     * {@code spec}.
     *
     * @param mode                shared (default), dedicated or private
     * @param isolationProfileRef the IsolationProfile, in this namespace, that bounds the tenant's workloads
     * @param syncPolicyRef       the SyncPolicy, in this namespace, that says which kinds cross to the host
     * @param hostNamespace       dedicated and private modes only: the tenant's own host namespace; default
     *                            {@code <metadata.namespace>-x-<tenant>} (see {@link TenantCluster#hostNamespace()})
     * @param controlPlane        the k3s control plane; defaults apply when absent
     */
    public record Spec(
            Mode mode,
            @Required("set isolationProfileRef.name to an IsolationProfile in the TenantCluster's namespace")
            Ref isolationProfileRef,
            @Required("set syncPolicyRef.name to a SyncPolicy in the TenantCluster's namespace")
            Ref syncPolicyRef,
            String hostNamespace,
            ControlPlane controlPlane) {
    }

    /** A reference by name to an object in the TenantCluster's namespace. */
    public record Ref(@Required("set the name of the referenced object") String name) {
    }

    /**
     * {@code spec.controlPlane}.
     *
     * @param replicas  k3s server replicas: 1 for sqlite (default), an odd number from 3 to 7 for etcd (default 3)
     * @param version   the k3s version, e.g. {@code v1.35.5+k3s1}; default {@link TenantCluster#DEFAULT_K3S_VERSION}
     * @param datastore where the tenant API state is kept
     * @param resources CPU and memory for the k3s container; defaults chosen by the renderer when absent
     * @param serviceCIDR the tenant API's Service range ({@code k3s --service-cidr}); it must hold the host's,
     *                    because a tenant Service takes the ClusterIP of its host copy; default
     *                    {@link #DEFAULT_SERVICE_CIDR}, or on a host whose range that does not hold, the /12 block
     *                    around the host's {@code kubernetes} Service
     * @param serviceNodePortRange the tenant API's node port range ({@code k3s --service-node-port-range}, written
     *                    {@code <first>-<last>}); it must hold the host's, because a tenant NodePort or LoadBalancer
     *                    Service takes the node ports of its host copy; unset: k3s's default, {@code 30000-32767},
     *                    which is kube-apiserver's too
     */
    public record ControlPlane(Integer replicas, String version, Datastore datastore, Resources resources,
                               String serviceCIDR, String serviceNodePortRange) {
        /** Without a Service range or node port range (the defaults apply). */
        public ControlPlane(Integer replicas, String version, Datastore datastore, Resources resources) {
            this(replicas, version, datastore, resources, null, null);
        }
    }

    /**
     * {@code spec.controlPlane.datastore}.
     *
     * @param type             sqlite (default) or etcd
     * @param storage          size of each replica's PersistentVolumeClaim, default {@value TenantCluster#DEFAULT_STORAGE}
     * @param storageClassName the StorageClass of the claim; the cluster default when absent
     */
    public record Datastore(DatastoreType type, @IntOrString String storage, String storageClassName) {
    }

    /** Container resource requests and limits, as in a Pod ({@code cpu: 500m}, {@code memory: 1Gi}). */
    public record Resources(@IntOrString Map<String, String> requests, @IntOrString Map<String, String> limits) {
        public Resources {
            requests = Copies.map(requests);
            limits = Copies.map(limits);
        }
    }

    /** {@code status.migration.step}: the steps of a migration, in the order they run. */
    public enum MigrationStep {
        /** The new place is prepared: namespace, boundary, control plane flags, agents. */
        @SerializedName("PrepareTarget") PREPARE_TARGET,
        /** The workloads move: copies in the new place, then the old place is collected. */
        @SerializedName("MoveWorkloads") MOVE_WORKLOADS,
        /** The old boundary is retired and {@code status.mode} switches. */
        @SerializedName("SwitchBoundary") SWITCH_BOUNDARY,
        /** What the old place still holds is removed. */
        @SerializedName("Cleanup") CLEANUP;

        /** The CamelCase value, e.g. {@code MoveWorkloads}. */
        public String value() {
            return Enums.jsonValue(this);
        }
    }

    /**
     * {@code status}, written by the controller.
     *
     * @param phase               a one-word summary; the conditions say why
     * @param observedGeneration  the {@code metadata.generation} this status describes
     * @param conditions          {@code Ready}, {@code Accepted} and failure conditions
     * @param hostNamespace       the namespace where the tenant's workloads run now
     * @param kubeconfigSecretRef the Secret holding the tenant API's kubeconfig
     * @param mode                the mode in effect; differs from {@code spec.mode} while migrating
     * @param migration           the migration in progress; null when none is
     */
    public record Status(Phase phase, Long observedGeneration, List<Condition> conditions, String hostNamespace,
                         SecretKeyRef kubeconfigSecretRef, Mode mode, Migration migration) {
        public Status {
            conditions = Copies.list(conditions);
        }

        /** A status without a migration in progress. */
        public Status(Phase phase, Long observedGeneration, List<Condition> conditions, String hostNamespace,
                      SecretKeyRef kubeconfigSecretRef, Mode mode) {
            this(phase, observedGeneration, conditions, hostNamespace, kubeconfigSecretRef, mode, null);
        }
    }

    /**
     * {@code status.migration}: a migration in progress, recorded before each step writes anything so that an
     * interrupted migration resumes at the same step ({@code io.tenantplane.migration.MigrationState} reads and
     * writes it).
     *
     * @param from      the mode the workloads are leaving
     * @param to        the mode they are moving to
     * @param step      the step in progress
     * @param startedAt RFC 3339 time the migration started
     */
    public record Migration(@Required("set the mode the workloads are leaving") Mode from,
                            @Required("set the mode the workloads are moving to") Mode to,
                            @Required("set the step in progress") MigrationStep step,
                            String startedAt) {
    }

    /** A key of a Secret. */
    public record SecretKeyRef(@Required("set the Secret's name") String name, String namespace,
                               @Required("set the key inside the Secret, e.g. config") String key) {
    }

    /** A TenantCluster with {@link #API_VERSION}, {@link #KIND} and no status. */
    public static TenantCluster of(ObjectMeta metadata, Spec spec) {
        return new TenantCluster(API_VERSION, KIND, metadata, spec, null);
    }

    /**
     * Converts a JSON object (e.g. read by {@link Manifests}) into the record. Wrong types, unknown enum values and a
     * wrong apiVersion or kind are problems; unknown fields are ignored here (call {@link #validate()} on the result,
     * or use {@link CustomResources#from}, for the full checks).
     */
    public static Parsed<TenantCluster> fromJson(JsonObject json) {
        return Conversion.fromJson(json, TenantCluster.class, API_VERSION, KIND);
    }

    /** This object as JSON, with the field names of the CRD; null fields and empty lists and maps are left out. */
    public JsonObject toJson() {
        return Conversion.toJson(this);
    }

    /** Every problem with this object on its own (dangling references are checked by {@link CustomResources}). */
    public List<Problem> validate() {
        return TenantClusterValidation.validate(this);
    }

    /** The tenant's name: {@code metadata.name}. */
    public String tenant() {
        return metadata == null ? null : metadata.name();
    }

    /** The namespace the TenantCluster (and its control plane) lives in: {@code metadata.namespace}. */
    public String namespace() {
        return metadata == null ? null : metadata.namespace();
    }

    /** The mode asked for: {@code spec.mode}, or shared when not set. */
    public Mode mode() {
        return spec == null || spec.mode() == null ? Mode.SHARED : spec.mode();
    }

    /**
     * The host namespace where tenant workloads run for the {@linkplain #mode() mode asked for}. Shared mode:
     * {@code metadata.namespace}. Dedicated and private modes: {@code spec.hostNamespace}, or by default
     * {@code <metadata.namespace>-x-<tenant>} under the host naming rule (e.g. {@code team-dev-x-dev}, hashed when
     * longer than 63 characters), so two tenants of the same name in different namespaces never share one.
     *
     * @throws IllegalArgumentException in dedicated and private modes without {@code spec.hostNamespace}, when the
     *                                  name or namespace is missing or invalid ({@link #validate()} reports it)
     */
    public String hostNamespace() {
        if (mode() == Mode.SHARED) {
            return namespace();
        }
        if (spec.hostNamespace() != null) {
            return spec.hostNamespace();
        }
        return HostNames.clusterScopedHostName(namespace(), tenant());
    }

    /** {@code <namespace>/<name>}, for messages. */
    public String id() {
        return namespace() + "/" + tenant();
    }

    /**
     * A copy with every default filled in: mode shared; control plane with datastore sqlite, storage
     * {@value #DEFAULT_STORAGE}, version {@link #DEFAULT_K3S_VERSION}, replicas 1 for sqlite and 3 for etcd.
     * Status is kept as is.
     */
    public TenantCluster withDefaults() {
        Spec s = spec == null ? new Spec(null, null, null, null, null) : spec;
        ControlPlane cp = s.controlPlane() == null ? new ControlPlane(null, null, null, null) : s.controlPlane();
        Datastore ds = cp.datastore() == null ? new Datastore(null, null, null) : cp.datastore();
        DatastoreType type = ds.type() == null ? DatastoreType.SQLITE : ds.type();
        Datastore dsd = new Datastore(type, ds.storage() == null ? DEFAULT_STORAGE : ds.storage(), ds.storageClassName());
        ControlPlane cpd = new ControlPlane(cp.replicas() == null ? (type == DatastoreType.ETCD ? 3 : 1) : cp.replicas(),
                cp.version() == null ? DEFAULT_K3S_VERSION : cp.version(), dsd, cp.resources(),
                cp.serviceCIDR() == null ? DEFAULT_SERVICE_CIDR : cp.serviceCIDR(), cp.serviceNodePortRange());
        Spec sd = new Spec(s.mode() == null ? Mode.SHARED : s.mode(), s.isolationProfileRef(), s.syncPolicyRef(),
                s.hostNamespace(), cpd);
        return new TenantCluster(apiVersion == null ? API_VERSION : apiVersion, kind == null ? KIND : kind, metadata,
                sd, status);
    }
}
