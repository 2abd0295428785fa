package dev.leasehold.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where a lock lives in ZooKeeper: one container node per lock name under {@link #ROOT}, holding
 * every acquisition's node of that name whatever its kind, so all kinds share one queue (and one
 * order of tokens).
 *
 * <p>The name is data, never path syntax: every character outside {@code [A-Za-z0-9_:-]} is
 * percent-encoded from its UTF-8 bytes, so {@code /}, {@code .}, control characters and the
 * Unicode ranges ZooKeeper refuses in paths can all appear in lock names, and two different names
 * never share a directory.
 */
final class LockPaths {

    /** The parent of every lock directory (below the client's chroot, if any). */
    static final String ROOT = "/leasehold/locks";

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private LockPaths() {
    }

    /**
     * Creates {@link #ROOT} (persistent) unless it exists, so the first acquire of a name creates
     * one container instead of three nodes, and a client that may not write there fails at once.
     *
     * @throws dev.leasehold.LockUnavailableException if the ensemble refuses or does not answer in time
     */
    static void ensureRoot(CuratorFramework curator, String ensemble, Duration timeout) {
        String operation = "the creation of " + ROOT;
        CompletableFuture<KeeperException.Code> created = new CompletableFuture<>();
        try {
            curator.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT)
                    .inBackground((client, event) -> created.complete(KeeperException.Code.get(event.getResultCode())))
                    .forPath(ROOT);
            KeeperException.Code code = created.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (code != KeeperException.Code.OK && code != KeeperException.Code.NODEEXISTS) {
                throw ZooKeeperErrors.of(ensemble, operation, code);
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw ZooKeeperErrors.of(ensemble, operation, interrupted);
        } catch (TimeoutException slow) {
            throw ZooKeeperErrors.of(ensemble, operation, KeeperException.Code.OPERATIONTIMEOUT);
        } catch (ExecutionException impossible) {
            throw ZooKeeperErrors.of(ensemble, operation, impossible);
        } catch (Exception error) {
            throw ZooKeeperErrors.of(ensemble, operation, error);
        }
    }

    /** The directory of lock {@code name} (a name already checked by {@code Args.lockName}). */
    static String directory(String name) {
        StringBuilder path = new StringBuilder(ROOT.length() + 1 + name.length() * 3).append(ROOT).append('/');
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ':' || c == '-') {
                path.append((char) c);
            } else {
                path.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return path.toString();
    }

    /**
     * The lock name whose directory is the child {@code directory} of {@link #ROOT}, or empty if no
     * lock name encodes to it (something else lives there).
     */
    static Optional<String> nameOf(String directory) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(directory.length());
        for (int i = 0; i < directory.length(); i++) {
            char c = directory.charAt(i);
            if (c == '%' && i + 2 < directory.length()) {
                int high = Character.digit(directory.charAt(i + 1), 16);
                int low = Character.digit(directory.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    return Optional.empty();
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else if (c < 0x80 && c != '%') {
                bytes.write(c);
            } else {
                return Optional.empty();
            }
        }
        String name = bytes.toString(StandardCharsets.UTF_8);
        return directory(name).equals(ROOT + "/" + directory) ? Optional.of(name) : Optional.empty();
    }
}
