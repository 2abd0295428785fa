package dev.leasehold.redis;

import dev.leasehold.BrokenLock;
import dev.leasehold.LockInfo;
import dev.leasehold.LockKind;
import dev.leasehold.engine.HolderIds;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisDeployment;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.spi.Args;
import dev.leasehold.spi.Glob;
import dev.leasehold.spi.Inspector;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScriptOutputType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * What a Redis deployment can tell about locks it did not take, for every kind: one name's
 * snapshot ({@code inspect.lua}), the held names matching a pattern ({@code list.lua} over bounded
 * {@code SCAN}s), and the operator's break ({@code break.lua}). A name held through its lock key (a
 * mutex, fair lock or write lock: they share that key, so the server cannot tell them apart) reads
 * as {@link LockKind#MUTEX}; one held by readers as {@link LockKind#READ} with every live reader; one
 * held by permits as {@link LockKind.Permits} with every live permit. Waiters count the registered
 * waiters, the waiting writers and the fair queue's live entries.
 */
final class RedisInspector implements Inspector {

    private static final Logger LOG = LoggerFactory.getLogger(RedisInspector.class);
    /** The endings of the sorted sets that hold a name's readers and permits, which SCAN finds instead of the name. */
    private static final List<Function<LockKeys, String>> MEMBER_SETS = List.of(LockKeys::readers, LockKeys::permits);
    private static final List<String> MEMBER_ENDINGS = List.of(":readers", ":permits");

    private final RedisDeployment deployment;
    private final RedisScripts scripts;
    private final String keyPrefix;
    private final Duration fenceRetention;
    private final Duration operationTimeout;

    RedisInspector(RedisDeployment deployment, RedisScripts scripts, String keyPrefix, Duration fenceRetention,
                   Duration operationTimeout) {
        this.deployment = deployment;
        this.scripts = scripts;
        this.keyPrefix = keyPrefix;
        this.fenceRetention = fenceRetention;
        this.operationTimeout = operationTimeout;
    }

    /**
     * Reads the state of {@code name} in one atomic step: its kind and holders (redacted), the first
     * holder's remaining ttl, last token, live waiters, and a key of another type, if any.
     *
     * @throws dev.leasehold.LockUnavailableException if the server cannot be reached
     */
    @Override
    public LockInfo inspect(String name) {
        List<Object> reply = await(scripts.inspect.run(deployment.commands(), ScriptOutputType.MULTI,
                snapshotKeys(LockKeys.of(name))), "inspect of '" + name + "'");
        return toInfo(name, reply);
    }

    /**
     * The names held right now that match the glob {@code pattern} (Redis {@code MATCH} syntax:
     * {@code *}, {@code ?}, {@code [abc]}, backslash escapes) under the client's key prefix, by name.
     * Walks the keyspace with {@code SCAN ... COUNT} {@value RedisLockClient#SCAN_BATCH}, never
     * {@code KEYS}, so the server is never blocked for long: once for the lock keys and once for each
     * ending of the sorted sets that hold readers and permits (both forms: {@code {name}:readers},
     * and {@code name:readers} for a name with a hash tag); each batch costs one script call per
     * slot that reads its candidates atomically. Like any {@code SCAN}, the walk is not a snapshot:
     * a lock taken or freed during it may or may not appear.
     *
     * <p>A name held through its lock key counts when the key holds a Leasehold holder id or has a
     * fencing counter beside it (so plain {@code SET NX} locks sharing a name with a Leasehold lock are
     * listed, plain strings are not); a name held by readers or permits always counts.
     *
     * @throws IllegalArgumentException if a {@code [} of the pattern is never closed ({@link Glob})
     * @throws dev.leasehold.LockUnavailableException if the server cannot be reached
     */
    @Override
    public List<LockInfo> list(String pattern) {
        // One syntax on every backend, matched per character: SCAN MATCH takes an unclosed '[' and
        // matches bytes, so its '?' and sets miss a name with a non-ASCII character there.
        Glob filter = Glob.of(pattern);
        Predicate<String> matches = name -> name.startsWith(keyPrefix)
                && filter.matches(name.substring(keyPrefix.length()));
        String glob = keyPrefix + bytewiseSuperset(pattern);
        Set<String> seen = new HashSet<>();
        List<LockInfo> found = new ArrayList<>();
        scan(glob, keys -> names(keys, key -> key), matches, seen, found);
        for (int i = 0; i < MEMBER_SETS.size(); i++) {
            Function<LockKeys, String> set = MEMBER_SETS.get(i);
            String ending = MEMBER_ENDINGS.get(i);
            Function<String, String> owner = key -> ownerOf(key, ending, set);
            scan("{" + glob + "}" + ending, keys -> names(keys, owner), matches, seen, found);
            scan(glob + ending, keys -> names(keys, owner), matches, seen, found);
        }
        found.sort(Comparator.comparing(LockInfo::name));
        return found;
    }

    /** Walks the keys matching {@code match}; each batch's candidate names not seen yet are read by list.lua. */
    private void scan(String match, Function<List<String>, Set<String>> candidates, Predicate<String> matches,
                      Set<String> seen, List<LockInfo> found) {
        ScanArgs args = ScanArgs.Builder.matches(match).limit(RedisLockClient.SCAN_BATCH);
        String operation = "the scan for '" + match + "'";
        KeyScanCursor<String> cursor = await(deployment.commands().scan(args), operation);
        while (true) {
            List<String> fresh = candidates.apply(cursor.getKeys()).stream().filter(matches).filter(seen::add)
                    .toList();
            // On a Cluster one script call may only read one slot: one call per slot among the batch.
            fresh.stream().collect(Collectors.groupingBy(deployment::scriptGroup)).values()
                    .forEach(sameSlot -> found.addAll(heldAmong(sameSlot)));
            if (cursor.isFinished()) {
                return;
            }
            cursor = await(deployment.commands().scan(cursor, args), operation);
        }
    }

    /**
     * A SCAN MATCH pattern that matches, byte by byte, every name the already checked glob
     * {@code pattern} matches character by character: each {@code ?} and each {@code [...]} set
     * becomes {@code *}; escapes and literal characters stay.
     */
    private static String bytewiseSuperset(String pattern) {
        StringBuilder match = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\' && i + 1 < pattern.length()) {
                match.append(c).append(pattern.charAt(++i));
            } else if (c == '?') {
                match.append('*');
            } else if (c == '[') {
                i = i + 1 < pattern.length() && pattern.charAt(i + 1) == '^' ? i + 2 : i + 1;
                while (pattern.charAt(i) != ']') {
                    i += pattern.charAt(i) == '\\' ? 2 : 1;
                }
                match.append('*');
            } else {
                match.append(c);
            }
        }
        return match.toString();
    }

    /** The lock names among {@code keys}, each given by {@code nameOf} (null: not a lock's key). */
    private static Set<String> names(List<String> keys, Function<String, String> nameOf) {
        Set<String> names = new LinkedHashSet<>();
        for (String key : keys) {
            String name = nameOf.apply(key);
            try {
                if (name != null) {
                    LockKeys.of(Args.lockName(name));
                    names.add(name);
                }
            } catch (IllegalArgumentException notALockName) {
                // an auxiliary key (e.g. {x}:fence), or a name no lock can have
            }
        }
        return names;
    }

    /** The lock whose {@code set} (readers or permits) {@code key} is, or null. */
    private static String ownerOf(String key, String ending, Function<LockKeys, String> set) {
        if (!key.endsWith(ending)) {
            return null;
        }
        String base = key.substring(0, key.length() - ending.length());
        String name = base.length() > 2 && base.charAt(0) == '{' && base.indexOf('}') == base.length() - 1
                ? base.substring(1, base.length() - 1) : base;
        try {
            return set.apply(LockKeys.of(name)).equals(key) ? name : null;
        } catch (IllegalArgumentException notALockName) {
            return null;
        }
    }

    /** One batch of list, all in one script group: the candidates that are held, read by one list.lua call. */
    private List<LockInfo> heldAmong(List<String> names) {
        List<String> scriptKeys = new ArrayList<>();
        for (String name : names) {
            scriptKeys.addAll(List.of(snapshotKeys(LockKeys.of(name))));
        }
        List<Object> reply = await(scripts.list.run(deployment.commands(), ScriptOutputType.MULTI,
                scriptKeys.toArray(String[]::new)), "the listing of locks");
        List<LockInfo> held = new ArrayList<>();
        for (Object entry : reply) {
            List<?> indexed = (List<?>) entry;
            String name = names.get(((Long) indexed.get(0)).intValue() - 1);
            held.add(toInfo(name, (List<?>) indexed.get(1)));
        }
        return held;
    }

    /** The keys of lib_snapshot.lua, in its order: what inspect.lua (and each name's part of list.lua) reads. */
    static String[] snapshotKeys(LockKeys keys) {
        return new String[] {keys.lock(), keys.fence(), keys.waiters(), keys.readers(), keys.writers(),
                keys.permits(), keys.queue(), keys.queueInfo()};
    }

    /** lib_snapshot.lua's reply as a {@link LockInfo}. */
    private static LockInfo toInfo(String name, List<?> reply) {
        String kindTag = (String) reply.get(0);
        int permits = Math.toIntExact((Long) reply.get(1));
        List<String> holders = ((List<?>) reply.get(2)).stream().map(holder -> HolderIds.redact((String) holder))
                .toList();
        long pttl = (Long) reply.get(3);
        String fence = (String) reply.get(4);
        String foreign = (String) reply.get(6);
        Optional<String> foreignText = foreign.isEmpty() ? Optional.empty() : Optional.of(foreignKey(foreign));
        OptionalLong lastToken = OptionalLong.empty();
        try {
            lastToken = fence.isEmpty() ? lastToken : OptionalLong.of(Long.parseLong(fence));
        } catch (NumberFormatException notACounter) {
            foreignText = Optional.of("key '" + LockKeys.of(name).fence() + "' holds a value that is not a fencing "
                    + "counter (a decimal up to 2^63 - 1); acquires of this lock fail until it is deleted");
        }
        return new LockInfo(name, kindOf(kindTag, permits), holders,
                pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty(), lastToken,
                (Long) reply.get(5), foreignText);
    }

    private static Optional<LockKind> kindOf(String tag, int permits) {
        return switch (tag) {
            case "lock" -> Optional.of(LockKind.MUTEX);
            case "read" -> Optional.of(LockKind.READ);
            // The number is stored with every grant; a set without it (written by hand) names no number.
            case "semaphore" -> permits >= 1 ? Optional.of(LockKind.permits(permits)) : Optional.empty();
            default -> Optional.empty();
        };
    }

    /**
     * Breaks the lock {@code name} as an administrator: deletes whatever holds it, whoever holds it
     * (the lock key, every reader, every permit), and advances the fence, so every token issued from
     * now on exceeds the broken holders' (even if the fence key had expired); records who broke it
     * and why in the hash {@link LockKeys#broken()} for {@link RedisLockClient#BREAK_AUDIT_RETENTION}
     * and in a log line; and wakes every waiter. All of it in one script call.
     *
     * <p>The broken holders are not told directly: a watchdog lease finds its key or member gone at
     * its next renewal (within a third of its ttl) and its {@link dev.leasehold.Lease#lost()}
     * completes; a fixed lease runs on until its local deadline. <b>Until then it believes it holds
     * the lock</b>, so a resource that does not check fencing tokens can see two writers; a guarded
     * one refuses the broken holder's writes as soon as the next holder's first write is admitted.
     *
     * @param reason why, for the audit record (required, at most {@value RedisLockClient#MAX_REASON_LENGTH}
     *               characters)
     * @return what was broken (the holder reported: the lock key's, else the reader's or permit's
     *         expiring first), or empty if nobody held the name (then nothing is written)
     * @throws IllegalArgumentException if reason is null, blank or too long
     * @throws dev.leasehold.LockUnavailableException if the server cannot be reached
     */
    @Override
    public Optional<BrokenLock> breakLock(String name, String reason) {
        Args.breakReason(reason);
        LockKeys keys = LockKeys.of(name);
        String by = BrokenLock.operator();
        List<Object> reply = await(scripts.breakLock.run(deployment.commands(), ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.fence(), keys.broken(), keys.readers(), keys.permits()}, by, reason,
                Long.toString(fenceRetention.toMillis()),
                Long.toString(RedisLockClient.BREAK_AUDIT_RETENTION.toMillis()), keys.channel()),
                "the break of '" + name + "'");
        if ((Long) reply.get(0) == 0L) {
            return Optional.empty();
        }
        BrokenLock broken = new BrokenLock(name, HolderIds.redact((String) reply.get(1)),
                Long.parseLong((String) reply.get(2)), by, reason);
        LOG.warn("Lock '{}' broken by {}: holder {} deleted, fence advanced to {}; reason: {}",
                name, by, broken.holder(), broken.fence(), reason);
        return Optional.of(broken);
    }

    /** The reply within the operation timeout, errors typed by {@link RedisErrors}. */
    <T> T await(CompletionStage<T> reply, String operation) {
        try {
            return reply.toCompletableFuture().get(operationTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RedisErrors.translate(deployment.describe(), operation, e);
        } catch (ExecutionException | TimeoutException e) {
            throw RedisErrors.translate(deployment.describe(), operation, e);
        }
    }

    /** The snapshot's {@code "<type> <key>"} in words. */
    private static String foreignKey(String typeAndKey) {
        int space = typeAndKey.indexOf(' ');
        return "key '" + typeAndKey.substring(space + 1) + "' holds a Redis " + typeAndKey.substring(0, space)
                + ", not a Leasehold value";
    }
}
