package dev.leasehold.redis;

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
    void anOpenBraceWithoutCloseStillHashesTheWholeName() {
        LockKeys keys = LockKeys.of("a{b");
        assertThat(hashedPart(keys.fence())).isEqualTo("a{b").isEqualTo(hashedPart(keys.lock()));
    }

    @Test
    void aCloseBraceWithoutValidTagIsRefused() {
        assertThatThrownBy(() -> LockKeys.of("a}b")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hash tag");
        assertThatThrownBy(() -> LockKeys.of("x{}y")).isInstanceOf(IllegalArgumentException.class);
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
