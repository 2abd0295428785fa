package dev.leasehold.etcd.internal;

import io.etcd.jetcd.ByteSequence;

import java.nio.charset.StandardCharsets;

/**
 * Where one lock name's acquisitions live in etcd: one key per acquisition under the name's queue
 * directory, {@code <prefix><escaped name>/<kind>-<etcd lease id in hex>}, attached to that etcd
 * lease. The key's create revision orders the queue and is the fencing token.
 *
 * <p>The name is escaped ({@code %} as {@code %25}, {@code /} as {@code %2F}) so no directory is a
 * prefix of another name's: lock {@code a} never sees the keys of lock {@code a/w}.
 */
public final class QueueKeys {

    /** The kind letter of keys that exclude everyone (mutex, fair lock, write lock). */
    public static final char EXCLUSIVE = 'w';
    /** The kind letter of read leases, which exclude only exclusive keys. */
    public static final char SHARED = 'r';

    private final String directory;

    private QueueKeys(String directory) {
        this.directory = directory;
    }

    /** The queue of {@code name} under {@code prefix}. */
    public static QueueKeys of(String prefix, String name) {
        return new QueueKeys(prefix + name.replace("%", "%25").replace("/", "%2F") + "/");
    }

    /** The directory every key of this queue starts with, for a prefix range or watch. */
    public ByteSequence directory() {
        return bytes(directory);
    }

    /** The key of one acquisition of {@code kind}, named by its own etcd lease. */
    public ByteSequence key(char kind, long leaseId) {
        return bytes(directory + kind + "-" + String.format("%016x", leaseId));
    }

    /** The kind letter of a key of this queue ({@link #EXCLUSIVE} or {@link #SHARED}). */
    public char kindOf(ByteSequence key) {
        return key.toString(StandardCharsets.UTF_8).charAt(directory.length());
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
