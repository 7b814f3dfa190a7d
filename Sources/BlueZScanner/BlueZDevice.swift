import CBlueZ

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - BlueZDevice

/// Opens a real adapter through libbluetooth (`hci_get_route` / `hci_devid`, `hci_open_dev`).
public enum BlueZDevice {
    /// A transport over a raw HCI socket bound to `name` (`hci0`), or the first adapter when nil.
    public static func open(_ name: String?) throws(ScannerError) -> FileDescriptorHCITransport {
        let deviceID = name.map { cbluez_device_id($0) } ?? cbluez_device_id(nil)
        if deviceID < 0 {
            let error = cbluez_errno()
            if error == EAFNOSUPPORT || error == EPROTONOSUPPORT { throw .bluetoothUnavailable(errno: error) }
            // hci_get_route only finds adapters that are up: say so when hci0 exists but is down.
            if name == nil, cbluez_device_is_up(0) == 0 { throw .adapterDown("hci0") }
            throw .noAdapter(name, errno: error, adapters: adapters())
        }
        let label = name ?? "hci\(deviceID)"
        switch cbluez_device_is_up(deviceID) {
        case 0: throw .adapterDown(label)
        case 1: break
        default:
            let error = cbluez_errno()
            if error == EAFNOSUPPORT || error == EPROTONOSUPPORT { throw .bluetoothUnavailable(errno: error) }
            throw .noAdapter(name, errno: error, adapters: adapters())
        }
        let fileDescriptor = cbluez_open_device(deviceID)
        if fileDescriptor < 0 {
            let error = cbluez_errno()
            switch error {
            case EPERM, EACCES: throw .notPermitted("opening \(label)", errno: error)
            case EBUSY: throw .busy(label, errno: error)
            case ENODEV: throw .noAdapter(label, errno: error, adapters: adapters())
            case ENETDOWN: throw .adapterDown(label)
            default: throw .io("opening \(label)", errno: error)
            }
        }
        return FileDescriptorHCITransport(
            fileDescriptor: fileDescriptor,
            filterStorage: .socketOption(
                read: { filter in
                    cbluez_read_filter(
                        fileDescriptor, &filter.typeMask, &filter.eventMask0, &filter.eventMask1,
                        &filter.opcode)
                },
                write: { filter in
                    cbluez_write_filter(
                        fileDescriptor, filter.typeMask, filter.eventMask0, filter.eventMask1,
                        filter.opcode)
                }),
            closeDescriptor: { cbluez_close_device($0) })
    }

    /// The adapters the kernel knows, as `hci0` or `hci1 (down)`; nil when they cannot be listed.
    static func adapters() -> [String]? {
        let capacity = 16
        var ids = [UInt16](repeating: 0, count: capacity)
        var up = [UInt8](repeating: 0, count: capacity)
        let count = cbluez_list_devices(&ids, &up, Int32(capacity))
        guard count >= 0 else { return nil }
        return (0..<min(Int(count), capacity)).sorted { ids[$0] < ids[$1] }
            .map { "hci\(ids[$0])" + (up[$0] == 1 ? "" : " (down)") }
    }
}
