package dev.leasehold.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code postgres} user that PostgreSQL and PgBouncer run as when this JVM is root, since both
 * refuse to run as root; as an ordinary user they run as this JVM's user and nothing here applies.
 */
final class ServerUser {

    private static final String NAME = "postgres";

    private ServerUser() {
    }

    /** {@code command} run as the {@code postgres} user when this JVM is root, otherwise as it is. */
    static List<String> wrap(List<String> command) {
        if (!runningAsRoot()) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of("setpriv", "--reuid=" + NAME, "--regid=" + NAME, "--init-groups", "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    /**
     * When this JVM is root, makes the {@code postgres} user the owner of {@code paths} (files the
     * server must read, directories it must write to); does nothing otherwise.
     *
     * @throws java.nio.file.attribute.UserPrincipalNotFoundException if this JVM is root and there is
     *     no {@code postgres} user
     * @throws IOException if an owner cannot be changed
     */
    static void own(Path... paths) throws IOException {
        if (!runningAsRoot() || paths.length == 0) {
            return;
        }
        UserPrincipal user = paths[0].getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(NAME);
        for (Path path : paths) {
            Files.setOwner(path, user);
        }
    }

    private static boolean runningAsRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).intValue() == 0;
        } catch (IOException | UnsupportedOperationException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }
}
