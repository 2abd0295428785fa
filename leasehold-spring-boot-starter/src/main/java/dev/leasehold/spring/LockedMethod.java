package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.LeaseSource;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Async;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * One {@link Locked} method, its attributes parsed and checked: what the interceptor needs per
 * call, computed once.
 *
 * @param method     the annotated method
 * @param name       its lock name expression
 * @param waitFor    how long a call waits for the lock
 * @param options    how the lease is held
 * @param kind       which lock ({@link Locked#kind()} with {@link Locked#permits()})
 * @param leaseIndex the position of its {@link Lease} parameter, or -1
 * @param ifLocked   what a call does when the lock cannot be had
 */
record LockedMethod(Method method, LockNameExpression name, Duration waitFor, LockOptions options, LockKind kind,
                    int leaseIndex, IfLocked ifLocked) {

    /**
     * Parses and checks the annotation of {@code method}.
     *
     * @param placeholders resolves {@code ${...}} in the attributes
     * @param defaults     {@code leasehold.locked.*}, for the attributes left empty
     * @throws LeaseholdConfigurationException naming the method and the attribute when one is
     *         malformed or out of range, the method has more than one {@code Lease} parameter, or a
     *         proxy cannot intercept it (private, final, static), or it returns a future, a stage or a
     *         reactive stream (its work would outlive the lock) without being {@code @Async}, or
     *         {@code leaseTime} comes with {@code ttl} or {@code maxHold}, or {@code SKIP} with a
     *         primitive return type, or {@code kind} and {@code permits} do not fit together
     */
    static LockedMethod of(Method method, Locked locked, UnaryOperator<String> placeholders,
                           LeaseholdProperties.Locked defaults) {
        String where = "@Locked(%s) on " + LockNameExpression.describe(method);
        String onMethod = "@Locked on " + LockNameExpression.describe(method);
        requireInterceptable(method, onMethod);
        LockNameExpression name = LockNameExpression.parse(method,
                resolve(where.formatted("name"), locked.name(), placeholders), where.formatted("name"));
        Duration waitFor = duration(where.formatted("waitFor"),
                resolve(where.formatted("waitFor"), locked.waitFor(), placeholders), defaults.getDefaultWait());
        if (waitFor.isNegative() || waitFor.compareTo(LeaseSource.MAX_WAIT) > 0) {
            throw new LeaseholdConfigurationException(where.formatted("waitFor"), "must be between 0 (try once) and "
                    + LeaseSource.MAX_WAIT.toDays() + " days, was " + waitFor, null);
        }
        LockOptions options = options(locked, where, placeholders, defaults);
        requireSkippable(method, locked.ifLocked(), where.formatted("ifLocked"));
        LockKind kind = LockedKind.of(locked, where.formatted("kind"));
        return new LockedMethod(method, name, waitFor, options, kind, leaseIndex(method, onMethod),
                locked.ifLocked());
    }

    /**
     * The lease options: the watchdog with {@code ttl} (and {@code maxHold}), or a fixed
     * {@code leaseTime}; then {@code holdAtLeast}. Each refusal names its attribute.
     */
    private static LockOptions options(Locked locked, String where, UnaryOperator<String> placeholders,
                                       LeaseholdProperties.Locked defaults) {
        String ttlText = resolve(where.formatted("ttl"), locked.ttl(), placeholders);
        Duration leaseTime = optionalDuration(where.formatted("leaseTime"), locked.leaseTime(), placeholders);
        Duration maxHold = optionalDuration(where.formatted("maxHold"), locked.maxHold(), placeholders);
        Duration holdAtLeast = optionalDuration(where.formatted("holdAtLeast"), locked.holdAtLeast(), placeholders);
        LockOptions options;
        if (leaseTime != null) {
            if (ttlText != null && !ttlText.isBlank()) {
                throw new LeaseholdConfigurationException(where.formatted("leaseTime"), "a fixed leaseTime and a "
                        + "watchdog ttl exclude each other; set one of them (ttl is renewed while the method runs, "
                        + "leaseTime is not)", null);
            }
            if (maxHold != null) {
                throw new LeaseholdConfigurationException(where.formatted("maxHold"), "maxHold bounds the watchdog's "
                        + "renewals and a fixed leaseTime is never renewed: it already ends after its leaseTime; "
                        + "drop maxHold, or use ttl with maxHold", null);
            }
            options = refusedAs(where.formatted("leaseTime"), () -> LockOptions.fixedLease(leaseTime));
        } else {
            Duration ttl = duration(where.formatted("ttl"), ttlText, defaults.getDefaultTtl());
            LockOptions watchdog = refusedAs(where.formatted("ttl"), () -> LockOptions.watchdog(ttl));
            options = maxHold == null ? watchdog : refusedAs(where.formatted("maxHold"), () -> watchdog.withMaxHold(maxHold));
        }
        if (holdAtLeast == null) {
            return options;
        }
        LockOptions held = options;
        return refusedAs(where.formatted("holdAtLeast"), () -> held.holdAtLeast(holdAtLeast));
    }

    /** {@code build()}, its {@link IllegalArgumentException} reported as a fault of the attribute {@code where}. */
    private static LockOptions refusedAs(String where, Supplier<LockOptions> build) {
        try {
            return build.get();
        } catch (IllegalArgumentException refused) {
            throw new LeaseholdConfigurationException(where, refused.getMessage(), refused);
        }
    }

    /** Refuses {@link IfLocked#SKIP} where a skipped call would have nothing to return. */
    private static void requireSkippable(Method method, IfLocked ifLocked, String where) {
        Class<?> type = method.getReturnType();
        if (ifLocked == IfLocked.SKIP && type.isPrimitive() && type != void.class) {
            throw new LeaseholdConfigurationException(where, "SKIP returns without running the method, and a "
                    + type.getName() + " has no value that says it did not run; return void, its wrapper type (null "
                    + "when skipped) or an Optional (empty when skipped), or use ifLocked = FAIL", null);
        }
    }

    /**
     * What a call skipped by {@link IfLocked#SKIP} returns: an empty {@link Optional}, a completed
     * future of {@code null} where the return type takes a {@link CompletableFuture}, else {@code null}.
     */
    Object skippedResult() {
        Class<?> type = method.getReturnType();
        if (type == Optional.class) {
            return Optional.empty();
        }
        if (type.isAssignableFrom(CompletableFuture.class)) {
            return type == Object.class ? null : CompletableFuture.completedFuture(null);
        }
        return null;
    }

    /** Refuses a method the lock could not be held around: one a proxy cannot intercept, or asynchronous work. */
    private static void requireInterceptable(Method method, String onMethod) {
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers) || Modifier.isStatic(modifiers)) {
            throw new LeaseholdConfigurationException(onMethod, "a "
                    + Modifier.toString(modifiers & (Modifier.PRIVATE | Modifier.FINAL | Modifier.STATIC))
                    + " method cannot be intercepted by a Spring proxy and would run without the lock; make it "
                    + "public (or protected) and not final", null);
        }
        if (returnsBeforeItsWorkIsDone(method.getReturnType()) && !isAsyncWithAFuture(method)) {
            throw new LeaseholdConfigurationException(onMethod, "it returns " + method.getReturnType().getSimpleName()
                    + ", so it returns before its work is done and the lock would be released too early; lock inside "
                    + "the work instead, e.g. with DistributedLock.callAsync", null);
        }
    }

    /**
     * An {@code @Async} method (on the method or its class) that returns a {@link Future}, as Spring
     * lets it: its body runs on the executor, where the lock is held around it, and the interceptor
     * keeps the lock until the future it returned is done (Spring's executor thread waits for that
     * future anyway).
     */
    private static boolean isAsyncWithAFuture(Method method) {
        return Future.class.isAssignableFrom(method.getReturnType())
                && (AnnotatedElementUtils.hasAnnotation(method, Async.class)
                        || AnnotatedElementUtils.hasAnnotation(method.getDeclaringClass(), Async.class));
    }

    /** A future, a stage or a reactive stream: work that goes on after the method returned. */
    private static boolean returnsBeforeItsWorkIsDone(Class<?> type) {
        return Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)
                || isA(type, "org.reactivestreams.Publisher");
    }

    /** Whether {@code type} is or extends the type of that name, which need not be on the classpath. */
    private static boolean isA(Class<?> type, String name) {
        if (type == null) {
            return false;
        }
        if (type.getName().equals(name)) {
            return true;
        }
        for (Class<?> implemented : type.getInterfaces()) {
            if (isA(implemented, name)) {
                return true;
            }
        }
        return isA(type.getSuperclass(), name);
    }

    /** The attribute with its {@code ${...}} placeholders resolved; an unresolved one is an error. */
    private static String resolve(String where, String text, UnaryOperator<String> placeholders) {
        String resolved;
        try {
            resolved = placeholders.apply(text);
        } catch (IllegalArgumentException unresolvable) {
            throw new LeaseholdConfigurationException(where, unresolvable.getMessage(), unresolvable);
        }
        if (resolved != null && resolved.contains("${")) {
            throw new LeaseholdConfigurationException(where, "\"" + text + "\" has a placeholder no property "
                    + "resolves; set the property, or give a default: ${name:5s}", null);
        }
        return resolved;
    }

    /** An attribute without a default: null when empty. */
    private static Duration optionalDuration(String where, String text, UnaryOperator<String> placeholders) {
        return duration(where, resolve(where, text, placeholders), null);
    }

    private static Duration duration(String where, String text, Duration fallback) {
        if (text == null || text.isBlank()) {
            return fallback;
        }
        try {
            return DurationStyle.detectAndParse(text.trim());
        } catch (IllegalArgumentException malformed) {
            throw new LeaseholdConfigurationException(where, "\"" + text + "\" is not a duration; write 500ms, 5s, "
                    + "2m, 1h, 0 or ISO-8601 such as PT5S", malformed);
        }
    }

    private static int leaseIndex(Method method, String where) {
        int index = -1;
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (types[i] == Lease.class) {
                if (index >= 0) {
                    throw new LeaseholdConfigurationException(where, "the method has two Lease parameters; the "
                            + "lock fills in one", null);
                }
                index = i;
            }
        }
        return index;
    }
}
