package dev.leasehold.zookeeper;

import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

import java.util.Collections;
import java.util.List;

/**
 * The ACLs of the nodes a digest-authenticated client creates. A lock's directory and every
 * acquisition's node: all permissions for the identities the creating session authenticated as
 * ({@code auth} scheme), none for anyone else; clients that share locks authenticate as the same
 * user, so they share those permissions. The shared parents ({@code /leasehold} and
 * {@link LockPaths#ROOT}): anyone may list them and create in them, so clients of other users (or
 * none) can keep their own locks beside these, and nobody else may change or delete them.
 */
final class DigestAcls implements ACLProvider {

    // Not List.of: ZooKeeper's client asks the list contains(null), which an immutable list refuses.
    private static final List<ACL> SHARED_PARENT = Collections.singletonList(
            new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.CREATE, ZooDefs.Ids.ANYONE_ID_UNSAFE));

    @Override
    public List<ACL> getDefaultAcl() {
        return ZooDefs.Ids.CREATOR_ALL_ACL;
    }

    @Override
    public List<ACL> getAclForPath(String path) {
        return LockPaths.ROOT.equals(path) || LockPaths.ROOT.startsWith(path + "/") ? SHARED_PARENT : ZooDefs.Ids.CREATOR_ALL_ACL;
    }
}
