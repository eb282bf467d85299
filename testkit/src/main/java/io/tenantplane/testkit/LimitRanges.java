package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A LimitRange checked as the API server checks it ({@code ValidateLimitRange} in
 * {@code pkg/apis/core/validation/validation.go}): one item per type; a {@code Pod} item takes no defaults; a
 * {@code PersistentVolumeClaim} item needs a storage minimum or maximum; and per resource the order
 * {@code min <= defaultRequest <= default <= max}, with {@code maxLimitRequestRatio} at least 1 and at most
 * {@code max/min}. Quantities are compared exactly and printed as written (upstream prints them canonically).
 */
final class LimitRanges {

    private LimitRanges() {
    }

    static void validate(JsonObject spec, List<ApiError.Cause> causes) {
        JsonArray limits = Json.arr(spec, "limits");
        if (limits == null) {
            return;
        }
        Set<String> types = new HashSet<>();
        for (int i = 0; i < limits.size(); i++) {
            JsonObject limit = Json.asObject(limits.get(i));
            String at = "spec.limits[" + i + "]";
            String type = Json.str(limit, "type");
            if (type == null || type.isEmpty()) {
                causes.add(ApiError.Cause.required(at + ".type"));
            } else if (!types.add(type)) {
                causes.add(ApiError.Cause.duplicate(at + ".type", Validation.quote(type)));
            }
            Map<String, Quantity> max = Quantity.parseEach(Json.obj(limit, "max"), at + ".max", false, causes);
            Map<String, Quantity> min = Quantity.parseEach(Json.obj(limit, "min"), at + ".min", false, causes);
            Map<String, Quantity> defaults = Map.of();
            Map<String, Quantity> defaultRequests = Map.of();
            if ("Pod".equals(type)) {
                for (String f : List.of("default", "defaultRequest")) {
                    JsonObject given = Json.obj(limit, f);
                    if (given != null && !given.isEmpty()) {
                        causes.add(ApiError.Cause.forbidden(at + "." + f, "may not be specified when `type` is 'Pod'"));
                    }
                }
            } else {
                defaults = Quantity.parseEach(Json.obj(limit, "default"), at + ".default", false, causes);
                defaultRequests = Quantity.parseEach(Json.obj(limit, "defaultRequest"), at + ".defaultRequest", false,
                        causes);
            }
            if ("PersistentVolumeClaim".equals(type) && !min.containsKey("storage") && !max.containsKey("storage")) {
                causes.add(ApiError.Cause.required(at + ".limits",
                        "either minimum or maximum storage value is required, but neither was provided"));
            }
            Map<String, Quantity> ratios = Quantity.parseEach(Json.obj(limit, "maxLimitRequestRatio"),
                    at + ".maxLimitRequestRatio", false, causes);
            Set<String> keys = new LinkedHashSet<>();
            for (Map<String, Quantity> m : List.of(max, min, defaults, defaultRequests, ratios)) {
                keys.addAll(m.keySet());
            }
            for (String k : keys) {
                Quantity mn = min.get(k);
                Quantity mx = max.get(k);
                Quantity df = defaults.get(k);
                Quantity dr = defaultRequests.get(k);
                Quantity ratio = ratios.get(k);
                if (mn != null && mx != null && mn.compareTo(mx) > 0) {
                    invalid(at + ".min[" + k + "]", mn, "min value " + mn + " is greater than max value " + mx, causes);
                }
                if (dr != null && mn != null && mn.compareTo(dr) > 0) {
                    invalid(at + ".defaultRequest[" + k + "]", dr, "min value " + mn
                            + " is greater than default request value " + dr, causes);
                }
                if (dr != null && mx != null && dr.compareTo(mx) > 0) {
                    invalid(at + ".defaultRequest[" + k + "]", dr, "default request value " + dr
                            + " is greater than max value " + mx, causes);
                }
                if (dr != null && df != null && dr.compareTo(df) > 0) {
                    invalid(at + ".defaultRequest[" + k + "]", dr, "default request value " + dr
                            + " is greater than default limit value " + df, causes);
                }
                if (df != null && mn != null && mn.compareTo(df) > 0) {
                    invalid(at + ".default[" + k + "]", mn, "min value " + mn + " is greater than default value " + df,
                            causes);
                }
                if (df != null && mx != null && df.compareTo(mx) > 0) {
                    invalid(at + ".default[" + k + "]", mx, "default value " + df + " is greater than max value " + mx,
                            causes);
                }
                if (ratio != null && ratio.value().compareTo(BigDecimal.ONE) < 0) {
                    invalid(at + ".maxLimitRequestRatio[" + k + "]", ratio, "ratio " + ratio + " is less than 1",
                            causes);
                }
                if (ratio != null && mn != null && mx != null && mn.value().signum() != 0) {
                    BigDecimal limitRatio = mx.value().divide(mn.value(), 6, RoundingMode.HALF_EVEN);
                    if (ratio.value().compareTo(limitRatio) > 0) {
                        invalid(at + ".maxLimitRequestRatio[" + k + "]", ratio, "ratio " + ratio
                                + " is greater than max/min = " + String.format(Locale.ROOT, "%f", limitRatio), causes);
                    }
                }
            }
        }
    }

    private static void invalid(String field, Quantity value, String detail, List<ApiError.Cause> causes) {
        causes.add(ApiError.Cause.invalid(field, Validation.quote(value.toString()), detail));
    }
}
