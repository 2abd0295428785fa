package dev.leasehold.etcd.internal;

import dev.leasehold.spi.QueueEntry;
import io.etcd.jetcd.ByteSequence;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Where one lock name's acquisitions live in etcd: one key per acquisition under the name's queue
 * directory, {@code <prefix><escaped name>/<tag>-<etcd lease id in hex>}, attached to that etcd
 * lease, or {@code <tag>-<session lease id in hex>-<number in hex>} on a session lease that
 * several acquisitions of one client share, the number reused by the session's later acquisitions
 * of the name once the key is deleted. The tag is the kind's letter ({@code w} exclusive, {@code r} read, {@code s} semaphore
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

    /**
     * The key of one acquisition tagged {@code tag} on a session lease that several acquisitions
     * share: named by the lease and a {@code number} that no other live key of the session has
     * under this name ({@code KeyNumbers}).
     */
    public ByteSequence key(String tag, long sessionLeaseId, long number) {
        return bytes(directory + tag + "-" + String.format("%016x", sessionLeaseId) + "-" + Long.toHexString(number));
    }

    /** Whether {@code key} is named by etcd lease {@code leaseId} alone: that lease is the key's own, no session's. */
    public static boolean namedByOwnLease(ByteSequence key, long leaseId) {
        return key.toString(StandardCharsets.UTF_8).endsWith("-" + String.format("%016x", leaseId));
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

    /** The tag of the keys of acquisitions asking for {@code entry}: its kind letter, and a permit's number. */
    public static String tag(QueueEntry entry) {
        return switch (entry.mode()) {
            case EXCLUSIVE -> String.valueOf(EXCLUSIVE);
            case READ -> String.valueOf(SHARED);
            case PERMIT -> String.valueOf(PERMIT) + entry.permits();
        };
    }

    /** What the acquisition of {@code key} asks for, as core's queue rule sees it; empty if it is no Leasehold key. */
    public Optional<QueueEntry> entryOf(ByteSequence key) {
        String text = key.toString(StandardCharsets.UTF_8);
        if (text.length() <= directory.length() || !text.startsWith(directory)) {
            return Optional.empty();
        }
        return switch (kindOf(key)) {
            case EXCLUSIVE -> Optional.of(QueueEntry.exclusive());
            case SHARED -> Optional.of(QueueEntry.read());
            case PERMIT -> permitsOf(key) < 1 ? Optional.empty() : Optional.of(QueueEntry.permit(permitsOf(key)));
            default -> Optional.empty();
        };
    }

    /**
     * What the acquisition of {@code key} asks for.
     *
     * @throws IllegalStateException if it is no Leasehold key: something else writes under the key prefix
     */
    public QueueEntry entry(ByteSequence key) {
        return entryOf(key).orElseThrow(() -> new IllegalStateException("etcd key " + key
                + " is not a Leasehold key; something else writes under the key prefix"));
    }

    /**
     * The lock name whose queue {@code key} (under {@code prefix}) belongs to, or empty if it is in
     * no queue directory (a leader record, or something else under the prefix).
     */
    public static Optional<String> nameOf(String prefix, ByteSequence key) {
        String text = key.toString(StandardCharsets.UTF_8);
        int slash = text.indexOf('/', prefix.length());
        if (!text.startsWith(prefix) || slash < 0) {
            return Optional.empty();
        }
        String escaped = text.substring(prefix.length(), slash);
        String name = escaped.replace("%2F", "/").replace("%25", "%");
        return of(prefix, name).directory.equals(text.substring(0, slash + 1)) ? Optional.of(name) : Optional.empty();
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
