package dev.leasehold.etcd.internal;

import io.etcd.jetcd.ByteSequence;

import java.nio.charset.StandardCharsets;

/**
 * Where one lock name's acquisitions live in etcd: one key per acquisition under the name's queue
 * directory, {@code <prefix><escaped name>/<tag>-<etcd lease id in hex>}, attached to that etcd
 * lease. The tag is the kind's letter ({@code w} exclusive, {@code r} read, {@code s} semaphore
 * permit, followed by the semaphore's number of permits). The key's create revision orders the
 * queue and is the fencing token.
 *
 * <p>The name is escaped ({@code %} as {@code %25}, {@code /} as {@code %2F}) so no directory is a
 * prefix of another name's: lock {@code a} never sees the keys of lock {@code a/w}.
 */
public final class QueueKeys {

    /** The kind letter of keys that exclude everyone (mutex, fair lock, write lock). */
    public static final char EXCLUSIVE = 'w';
    /** The kind letter of read leases, which exclude only exclusive keys. */
    public static final char SHARED = 'r';
    /** The kind letter of semaphore permits, which only other permits of the name count. */
    public static final char PERMIT = 's';

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

    /** The key of one acquisition tagged {@code tag}, named by its own etcd lease. */
    public ByteSequence key(String tag, long leaseId) {
        return bytes(directory + tag + "-" + String.format("%016x", leaseId));
    }

    /** The kind letter of a key of this queue ({@link #EXCLUSIVE}, {@link #SHARED} or {@link #PERMIT}). */
    public char kindOf(ByteSequence key) {
        return key.toString(StandardCharsets.UTF_8).charAt(directory.length());
    }

    /** The number of permits a {@link #PERMIT} key was taken under, or -1 if unreadable. */
    public int permitsOf(ByteSequence key) {
        String text = key.toString(StandardCharsets.UTF_8);
        int dash = text.indexOf('-', directory.length());
        try {
            return Integer.parseInt(text.substring(directory.length() + 1, dash));
        } catch (RuntimeException unreadable) {
            return -1;
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
