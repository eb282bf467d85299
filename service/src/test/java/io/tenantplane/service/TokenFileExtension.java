package io.tenantplane.service;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Writes a bearer token file and points {@code tenantplane.auth.bearer-token-file} at it before the CDI container
 * starts; declare it before {@code @HelidonTest} so it runs first.
 */
final class TokenFileExtension implements BeforeAllCallback, AfterAllCallback {

    static final String TOKEN = "first-token";
    private static Path file;

    static Path file() {
        return file;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        file = Files.createTempFile("tenantplane-token", ".txt");
        Files.writeString(file, TOKEN + "\n");
        System.setProperty(ServiceSettings.AUTH_BEARER_TOKEN_FILE, file.toString());
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        System.clearProperty(ServiceSettings.AUTH_BEARER_TOKEN_FILE);
        Files.deleteIfExists(file);
    }
}
