/**
 * Not supported API: the one reporter of executed decisions ({@link io.tenantplane.apply.internal.Execution}), JSON
 * over client-java's client ({@link io.tenantplane.apply.internal.Rest}) and the minting of tenant tokens, public
 * only because the SDK's passes call them; they may change in any release.
 */
package io.tenantplane.apply.internal;
