package dev.leasehold.etcd;

/** The shared contract for the etcd mutex, against a real three-member etcd cluster. */
class EtcdLockContractTest extends EtcdContract {
}
