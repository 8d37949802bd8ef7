import Synchronization

/// What the HTTP side hands to the control thread (WebSocket datagrams, closes), waiting there
/// until the control thread takes it: a FIFO of at most `capacity` offered items, safe from any
/// thread. The lock is held only to append or to swap the whole queue out, never while an item is
/// handled, so neither side ever waits for the other's work.
public final class ControlInbox<Item: Sendable>: Sendable {
    /// Items `offer` queues at most; beyond that it refuses (`HTTPLimits.controlInboxLength` in rack).
    public let capacity: Int
    private let items: Mutex<[Item]>

    public init(capacity: Int) {
        precondition(capacity > 0, "an inbox holds at least one item")
        self.capacity = capacity
        items = Mutex([])
    }

    /// Queues `item` unless `capacity` items are already waiting; false then, and nothing is
    /// queued (the sender must be told: the caller answers it).
    public func offer(_ item: Item) -> Bool {
        items.withLock { queue in
            guard queue.count < capacity else { return false }
            queue.append(item)
            return true
        }
    }

    /// Queues `item` whatever the count: for what must never be lost, a connection's close (one
    /// per connection, so these are bounded by `HTTPLimits.maximumConnections`). Offers are
    /// refused while the count is over `capacity`.
    public func insist(_ item: Item) {
        items.withLock { $0.append(item) }
    }

    /// Every queued item, oldest first, leaving the inbox empty.
    public func takeAll() -> [Item] {
        items.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }
}
