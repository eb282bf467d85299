package io.tenantplane.observe;

import com.google.gson.JsonObject;
import io.tenantplane.plan.Decision;

/**
 * What happened when the applier executed one {@link Decision}. Expected API answers (404, 409, 422) are data here,
 * not exceptions.
 */
public sealed interface Outcome {

    /** The decision that was executed. */
    Decision decision();

    /** The write succeeded; {@code result} is the object as the server returned it (null after a delete). */
    record Applied(Decision decision, JsonObject result, int attempts) implements Outcome {
    }

    /** Nothing had to be written ({@code Unchanged}, {@code Skip}, {@code Conflict}, {@code Error}, or a dry run). */
    record NotWritten(Decision decision) implements Outcome {
    }

    /**
     * The write failed and was not retried further; the next pass will try again.
     *
     * @param code    the HTTP status code from the API server, or 0 when no answer came
     * @param reason  the Kubernetes {@code Status.reason}, e.g. {@code Conflict}, or the exception class
     * @param message a human sentence
     */
    record Failed(Decision decision, int code, String reason, String message, int attempts) implements Outcome {
    }
}
