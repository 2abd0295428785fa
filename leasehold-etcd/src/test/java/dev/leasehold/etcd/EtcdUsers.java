package dev.leasehold.etcd;

import dev.leasehold.launcher.TestSecrets;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.auth.Permission;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Turns on authentication in a test cluster, with a root user and one user allowed one key range. */
final class EtcdUsers {

    private EtcdUsers() {
    }

    /**
     * Adds the root user (password {@code "root-" + password}), a role that may read and write the
     * keys from {@code from} up to (not including) {@code to}, a user {@code user} with that role and
     * {@code password}, and enables authentication; both passwords are recorded as test secrets.
     */
    static void enable(String endpoints, String user, String password, String from, String to) throws Exception {
        TestSecrets.record(password);
        TestSecrets.record("root-" + password);
        try (Client admin = Client.builder().endpoints(endpoints).build()) {
            var auth = admin.getAuthClient();
            auth.roleAdd(bytes("root")).get(5, TimeUnit.SECONDS);
            auth.userAdd(bytes("root"), bytes("root-" + password)).get(5, TimeUnit.SECONDS);
            auth.userGrantRole(bytes("root"), bytes("root")).get(5, TimeUnit.SECONDS);
            auth.roleAdd(bytes(user + "-role")).get(5, TimeUnit.SECONDS);
            auth.roleGrantPermission(bytes(user + "-role"), bytes(from), bytes(to), Permission.Type.READWRITE)
                    .get(5, TimeUnit.SECONDS);
            auth.userAdd(bytes(user), bytes(password)).get(5, TimeUnit.SECONDS);
            auth.userGrantRole(bytes(user), bytes(user + "-role")).get(5, TimeUnit.SECONDS);
            auth.authEnable().get(5, TimeUnit.SECONDS);
        }
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
