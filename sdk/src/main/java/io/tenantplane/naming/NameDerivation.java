package io.tenantplane.naming;

/**
 * How one host name was made, step by step, so that {@code explain} can show it.
 *
 * @param plainForm  the parts joined with {@code -x-}, e.g. {@code nginx-x-default-x-dev}
 * @param hashed     whether the truncation-and-hash rule applied
 * @param hashReason why it applied ({@code null} when it did not), e.g. "the plain form has 70 characters (more than 63)"
 * @param hashInput  what is hashed: the plain form, or for an ambiguous plain form the parts joined with {@code /}
 * @param sha256     the full lowercase hex SHA-256 of {@code hashInput} (always computed, so the docs can show it)
 * @param hostName   the resulting host name
 */
public record NameDerivation(String plainForm, boolean hashed, String hashReason, String hashInput, String sha256,
                             String hostName) {
}
