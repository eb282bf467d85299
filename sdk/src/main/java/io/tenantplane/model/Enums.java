package io.tenantplane.model;

import com.google.gson.annotations.SerializedName;
import java.util.ArrayList;
import java.util.List;

/** The JSON spelling of enum constants, taken from their {@link SerializedName}. */
final class Enums {

    private Enums() {
    }

    static String jsonValue(Enum<?> constant) {
        try {
            SerializedName n = constant.getDeclaringClass().getField(constant.name()).getAnnotation(SerializedName.class);
            return n == null ? constant.name() : n.value();
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<String> jsonValues(Class<?> enumType) {
        List<String> out = new ArrayList<>();
        for (Object c : enumType.getEnumConstants()) {
            out.add(jsonValue((Enum<?>) c));
        }
        return out;
    }
}
