package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.model.InvalidResourceException;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.Problem;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The read step of a TenantCluster: the TenantCluster as stored, and with it the SyncPolicy and IsolationProfile it
 * references and every problem with the three (their validation, a missing reference, a profile that does not fit
 * the mode, a boundary that would refuse the tenant's own control plane). Provisioning reads through it before it
 * plans, and so does {@code TenantPlane.context}, which a pass without a provisioning before it starts from.
 */
final class TenantReader {

    private static final ResourceKind TENANT_CLUSTERS = ResourceKind.wellKnown(TenantCluster.API_VERSION,
            TenantCluster.KIND).orElseThrow();
    private static final ResourceKind SYNC_POLICIES = ResourceKind.wellKnown(SyncPolicy.API_VERSION,
            SyncPolicy.KIND).orElseThrow();
    private static final ResourceKind PROFILES = ResourceKind.wellKnown(IsolationProfile.API_VERSION,
            IsolationProfile.KIND).orElseThrow();

    private final Reader reader;

    TenantReader(Reader reader) {
        this.reader = reader;
    }

    /** The TenantCluster {@code key} as stored; empty when it does not exist. */
    Optional<JsonObject> stored(TenantKey key) {
        return reader.get(TENANT_CLUSTERS, key.namespace(), key.name());
    }

    /**
     * The TenantCluster {@code key} with the SyncPolicy and IsolationProfile it references, where it runs now
     * ({@link Placement}).
     *
     * @return empty when the TenantCluster does not exist
     * @throws InvalidResourceException when it or what it references is invalid or missing
     */
    Optional<TenantContext> context(TenantKey key) {
        Optional<JsonObject> json = stored(key);
        if (json.isEmpty()) {
            return Optional.empty();
        }
        TenantCluster tc = TenantCluster.fromJson(json.get()).orElseThrow("TenantCluster " + key
                + " cannot be read");
        TenantCluster place = Placement.of(tc).cluster();
        Resolved r = resolve(place);
        if (!r.problems().isEmpty()) {
            throw new InvalidResourceException("TenantCluster " + key + " cannot be synced", r.problems());
        }
        return Optional.of(new TenantContext(place, r.policy(), r.profile()));
    }

    /** The policy and profile a TenantCluster references, and every problem with the three. */
    Resolved resolve(TenantCluster tc) {
        List<Problem> problems = new ArrayList<>(tc.validate());
        TenantCluster.Spec spec = tc.spec();
        SyncPolicy policy = spec == null || spec.syncPolicyRef() == null ? null
                : referenced(tc, SYNC_POLICIES, "spec.syncPolicyRef.name", spec.syncPolicyRef().name(),
                        SyncPolicy::fromJson, SyncPolicy::validate, problems);
        IsolationProfile profile = spec == null || spec.isolationProfileRef() == null ? null
                : referenced(tc, PROFILES, "spec.isolationProfileRef.name", spec.isolationProfileRef().name(),
                        IsolationProfile::fromJson, IsolationProfile::validate, problems);
        if (profile != null) {
            problems.addAll(profile.validateFor(tc));
        }
        if (problems.isEmpty() && profile != null) {
            problems.addAll(BoundaryFit.problems(tc, profile, TenantRendering.of(tc, profile)));
        }
        return new Resolved(policy, profile, List.copyOf(problems));
    }

    /**
     * The object {@code tc} references by {@code name} at {@code field}, read from its namespace and parsed; its
     * problems, and a missing object as a problem at {@code field}, are added to {@code problems}. Null when no name is
     * given, or the object is missing or does not parse.
     */
    private <T> T referenced(TenantCluster tc, ResourceKind kind, String field, String name,
                             Function<JsonObject, Parsed<T>> parse, Function<T, List<Problem>> validate,
                             List<Problem> problems) {
        if (name == null) {
            return null;
        }
        Optional<JsonObject> json = reader.get(kind, tc.namespace(), name);
        if (json.isEmpty()) {
            problems.add(Problem.of(field, kind.kind() + " " + name + " does not exist in namespace "
                    + tc.namespace() + "; create it or reference an existing one"));
            return null;
        }
        String source = kind.kind() + " " + name;
        Parsed<T> parsed = parse.apply(json.get());
        problems.addAll(parsed.problems().stream().map(x -> x.withSource(source)).toList());
        T value = parsed.toOptional().orElse(null);
        if (value != null) {
            problems.addAll(validate.apply(value).stream().map(x -> x.withSource(source)).toList());
        }
        return value;
    }

    /** The policy and profile a TenantCluster references (null when unreadable) and every problem with the three. */
    record Resolved(SyncPolicy policy, IsolationProfile profile, List<Problem> problems) {
    }
}
