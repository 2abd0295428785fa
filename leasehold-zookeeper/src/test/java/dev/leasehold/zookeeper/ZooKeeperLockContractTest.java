package dev.leasehold.zookeeper;

/** The whole shared contract for the ZooKeeper mutex (the contract's default lock), against a real three-server ensemble. */
class ZooKeeperLockContractTest extends ZooKeeperContract {
}
