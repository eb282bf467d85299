/**
 * The pure transform of one tenant object into the host object that represents it: host name, reverse-mapping
 * metadata, stripped host-owned fields, rewritten references and Pod Security checks. No I/O.
 */
package io.tenantplane.transform;
