package dev.leasehold.zookeeper;

import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.List;

/**
 * The ACLs of the nodes a digest-authenticated client creates. A lock's directory and every
 * acquisition's node: all permissions for the identities the creating session authenticated as
 * ({@code auth} scheme), none for anyone else; clients that share locks authenticate as the same
 * user, so they share those permissions. The shared parents ({@code /leasehold} and
 * {@link LockPaths#ROOT}): anyone may list them and create in them, so clients of other users (or
 * none) can keep their own locks beside these, and nobody else may change or delete them.
 *
 * <p>A lock directory that another session created first keeps the ACL it was given, and ZooKeeper
 * checks the permission to create or delete a node on its parent: such a directory would let that
 * session delete the holder's node or queue before it. So an acquire checks the directory with
 * {@link #isOwn(List)} before it counts.
 */
final class DigestAcls implements ACLProvider {

    // Not List.of: ZooKeeper's client asks the list contains(null), which an immutable list refuses.
    private static final List<ACL> SHARED_PARENT = Collections.singletonList(
            new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.CREATE, ZooDefs.Ids.ANYONE_ID_UNSAFE));

    /** This user's identity as ZooKeeper stores it in an ACL: {@code digest}, {@code user:base64(sha1(user:password))}. */
    private final Id owner;

    DigestAcls(String user, String password) {
        try {
            this.owner = new Id("digest", DigestAuthenticationProvider.generateDigest(user + ":" + password));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-1, which ZooKeeper's digest scheme needs", e);
        }
    }

    /** Whether {@code acl} grants permissions to this user alone, as the directories this user creates do. */
    boolean isOwn(List<ACL> acl) {
        return !acl.isEmpty() && acl.stream().allMatch(entry -> owner.equals(entry.getId()));
    }

    @Override
    public List<ACL> getDefaultAcl() {
        return ZooDefs.Ids.CREATOR_ALL_ACL;
    }

    @Override
    public List<ACL> getAclForPath(String path) {
        return LockPaths.ROOT.equals(path) || LockPaths.ROOT.startsWith(path + "/") ? SHARED_PARENT : ZooDefs.Ids.CREATOR_ALL_ACL;
    }
}
