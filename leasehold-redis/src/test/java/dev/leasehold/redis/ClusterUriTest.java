package dev.leasehold.redis;

import dev.leasehold.redis.internal.ClusterConnector;
import dev.leasehold.redis.internal.ClusterUri;
import dev.leasehold.redis.internal.RedisEndpoint;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one-string Cluster form; connecting with it to a real Cluster is in {@link ClusterDeploymentTest}. */
class ClusterUriTest {

    private static final String SECRET = "s3cret";

    @Test
    void everySeedCarriesTheSchemeCredentialsAndQuery() {
        assertThat(ClusterUri.seeds("redis-cluster://app:" + SECRET + "@h1:7000,h2:7001?timeout=5s"))
                .containsExactly("redis://app:" + SECRET + "@h1:7000?timeout=5s", "redis://app:" + SECRET + "@h2:7001?timeout=5s");
        assertThat(ClusterUri.seeds("rediss-cluster://h1:7000")).containsExactly("rediss://h1:7000");
        assertThat(ClusterUri.seeds("redis-cluster://[::1]:7000, [::1]:7001"))
                .containsExactly("redis://[::1]:7000", "redis://[::1]:7001");
    }

    @Test
    void malformedClusterUrisAreRefusedWithoutEchoingThem() {
        for (String bad : new String[] {"redis-cluster://", "redis-cluster://:" + SECRET + "@",
                "redis-cluster://h1:7000,,h2:7001", "redis-cluster://:" + SECRET + "@h1:7000,"}) {
            assertThatThrownBy(() -> RedisLocks.builder().uri(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("host:port")
                    .hasMessageNotContaining(SECRET);
        }
        assertThatThrownBy(() -> RedisLocks.builder().uri("redis-cluster://:" + SECRET + "@h1:7000/3"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("database 0")
                .hasMessageNotContaining(SECRET);
        assertThatThrownBy(() -> RedisLocks.builder().uri("redis-cluster://h1:7000#mymaster"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("database 0");
    }

    /** An '@' in the query (a client name) does not end the credentials there and merge the seeds. */
    @Test
    void anAtSignInTheQueryStaysInTheQuery() {
        assertThat(ClusterUri.seeds("redis-cluster://:" + SECRET + "@h1:7000,h2:7001?clientName=app@corp"))
                .containsExactly("redis://:" + SECRET + "@h1:7000?clientName=app@corp",
                        "redis://:" + SECRET + "@h2:7001?clientName=app@corp");
    }

    @Test
    void aFragmentAfterTheQueryIsRefusedLikeOneAfterTheHosts() {
        assertThatThrownBy(() -> RedisLocks.builder().uri("redis-cluster://h1:7000?timeout=2s#mymaster"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("database 0");
    }

    /** describe() says TLS as the URI did: a reader checking a deployment's settings must not see plain text. */
    @Test
    void aTlsClusterIsDescribedAsOne() {
        assertThat(ClusterConnector.describe(ClusterUri.seeds("rediss-cluster://:" + SECRET + "@h1:7000,h2:7001")
                .stream().map(RedisEndpoint::parse).toList())).isEqualTo("rediss-cluster://h1:7000,h2:7001");
        assertThat(ClusterConnector.describe(ClusterUri.seeds("redis-cluster://h1:7000").stream()
                .map(RedisEndpoint::parse).toList())).isEqualTo("redis-cluster://h1:7000");
    }

    /** Lettuce reads a database from the query too ({@code ?database=N}, {@code ?db=N}): a Cluster has only 0. */
    @Test
    void aDatabaseInTheQueryIsRefusedLikeOneInThePath() {
        for (String query : new String[] {"?database=3", "?db=3", "?timeout=5s&database=3"}) {
            assertThatThrownBy(() -> RedisLocks.builder().uri("redis-cluster://:" + SECRET + "@h1:7000,h2:7001" + query))
                    .as(query).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("database 0")
                    .hasMessageNotContaining(SECRET);
        }
        assertThatThrownBy(() -> RedisLocks.builder().cluster("redis://h1:7000/3"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("database 0");
        RedisLocks.builder().uri("redis-cluster://h1:7000?database=0");
    }

    @Test
    void aClusterSeedInTheClusterFormIsRefusedByCluster() {
        assertThatThrownBy(() -> RedisLocks.builder().cluster("redis-cluster://h1:7000"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redis://");
    }
}
