package dev.leasehold.redis;

import dev.leasehold.redis.internal.LockKeys;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Auxiliary keys must hash to the lock key's Cluster slot under Redis's hash-tag rule. */
class LockKeysTest {

    @Test
    void aNameWithoutHashTagIsWrappedSoItsWholeTextIsTheTag() {
        LockKeys keys = LockKeys.of("order:123");
        assertThat(keys.lock()).isEqualTo("order:123");
        assertThat(keys.fence()).isEqualTo("{order:123}:fence");
        assertThat(keys.waiters()).isEqualTo("{order:123}:waiters");
        assertThat(keys.channel()).isEqualTo("{order:123}:released");
        assertThat(hashedPart(keys.fence())).isEqualTo(hashedPart(keys.lock()));
    }

    @Test
    void aNameWithAHashTagKeepsItAndGetsSuffixes() {
        LockKeys keys = LockKeys.of("{tenant-7}:job");
        assertThat(keys.fence()).isEqualTo("{tenant-7}:job:fence");
        assertThat(hashedPart(keys.fence())).isEqualTo("tenant-7").isEqualTo(hashedPart(keys.lock()));
    }

    @Test
    void theAuditRecordOfABreakSharesTheLocksSlot() {
        assertThat(LockKeys.of("order:123").broken()).isEqualTo("{order:123}:broken");
        assertThat(LockKeys.of("{tenant-7}:job").broken()).isEqualTo("{tenant-7}:job:broken");
    }

    @Test
    void theLeaderRecordSharesTheLocksSlot() {
        assertThat(LockKeys.of("order:123").leader()).isEqualTo("{order:123}:leader");
        assertThat(LockKeys.of("{tenant-7}:job").leader()).isEqualTo("{tenant-7}:job:leader");
    }

    @Test
    void aLeaseKeyBuiltAloneIsTheOneOfTheWholeSet() {
        for (String name : new String[] {"order:123", "{tenant-7}:job", "a{b", "a{b}c"}) {
            assertThat(LockKeys.readersOf(name)).as(name).isEqualTo(LockKeys.of(name).readers());
            assertThat(LockKeys.permitsOf(name)).as(name).isEqualTo(LockKeys.of(name).permits());
        }
    }

    @Test
    void anOpenBraceWithoutCloseStillHashesTheWholeName() {
        LockKeys keys = LockKeys.of("a{b");
        assertThat(hashedPart(keys.fence())).isEqualTo("a{b").isEqualTo(hashedPart(keys.lock()));
    }

    @Test
    void aCloseBraceWithoutValidTagIsRefused() {
        assertThatThrownBy(() -> LockKeys.of("a}b")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hash tag");
        assertThatThrownBy(() -> LockKeys.of("x{}y")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTaggedNameThatIsAnotherLocksFenceOrWaitersKeyIsRefused() {
        String[][] nameAndOwner = {{"{x}:fence", "x"}, {"{x}:waiters", "x"}, {"a{x}:fence", "a{x}"},
                {"{t}:job:waiters", "{t}:job"}, {"{x}:broken", "x"}, {"{x}:leader", "x"}};
        for (String[] pair : nameAndOwner) {
            assertThatThrownBy(() -> LockKeys.of(pair[0])).as(pair[0]).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + pair[0] + "'")
                    .hasMessageContaining("auxiliary key of lock '" + pair[1] + "'");
        }
    }

    @Test
    void bracesAroundAWholeNameAreRefusedBecauseTheyShareThatNamesKeys() {
        assertThatThrownBy(() -> LockKeys.of("{order:123}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'order:123'");
        assertThatThrownBy(() -> LockKeys.of("{a{b}")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void namesThatLookLikeAuxiliaryKeysButCannotCollideAreAccepted() {
        // Untagged: every auxiliary key carries a hash tag, so an untagged lock key never equals one.
        assertThat(LockKeys.of("garden:fence").fence()).isEqualTo("{garden:fence}:fence");
        // A channel is not a key: lock '{x}:released' and lock x's channel live in different namespaces.
        assertThat(LockKeys.of("{x}:released").channel()).isEqualTo("{x}:released:released");
        assertThat(LockKeys.of("{x}:fences").fence()).isEqualTo("{x}:fences:fence");
        assertThat(LockKeys.of("{x}y").fence()).isEqualTo("{x}y:fence");
    }

    @Test
    void noTwoAcceptedNamesShareAKeyOrAChannel() {
        String[] names = {"x", "{x}", "{x}:fence", "{x}:waiters", "{x}:released", "a{x}", "a{x}:fence", "x:fence",
                "{x}:job", "{x}:job:fence", "{x}:job:waiters", "a{b", "{a{b}", "{x}y", "garden:fence"};
        java.util.Map<String, String> keyOwners = new java.util.HashMap<>();
        java.util.Map<String, String> channelOwners = new java.util.HashMap<>();
        for (String name : names) {
            LockKeys keys;
            try {
                keys = LockKeys.of(name);
            } catch (IllegalArgumentException refused) {
                continue;
            }
            for (String key : new String[] {keys.lock(), keys.fence(), keys.waiters()}) {
                String other = keyOwners.put(key, name);
                assertThat(other).as("key %s of %s", key, name).isNull();
            }
            assertThat(channelOwners.put(keys.channel(), name)).as("channel of %s", name).isNull();
        }
    }

    /** The part of a key Redis Cluster hashes, per the Cluster specification. */
    private static String hashedPart(String key) {
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                return key.substring(open + 1, close);
            }
        }
        return key;
    }
}
