package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tenantplane.migration.LiveMigration;
import io.tenantplane.migration.MigrationPlanner;
import io.tenantplane.model.TenantCluster.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The worked examples in docs/migration.md are the plans tenantplane prints today, verbatim. */
class MigrationDocsIT {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"SHARED,DEDICATED", "SHARED,PRIVATE"})
    void theDocumentedPlanIsTheOneThePlannerMakes(Mode from, Mode to) throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "migration.md"));
        try (LiveMigration world = LiveMigration.start(from, false)) {
            world.setMode(to);
            String plan = new MigrationPlanner().plan(world.runner().snapshot(world.key(), world.tenant)).render();
            if (Boolean.getBoolean("tenantplane.docs.print")) {
                System.out.println("----8<----\n" + plan + "----8<----");
            }
            assertTrue(doc.contains(plan), "docs/migration.md does not show the current " + from + " -> " + to
                    + " plan; run with -Dtenantplane.docs.print=true and paste it:\n" + plan);
        }
    }
}
