#ifndef CANTEEN_CBLUEZ_SHIM_H
#define CANTEEN_CBLUEZ_SHIM_H

#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

/* Thin wrappers over libbluetooth for BlueZScanner: macros and out-parameters made Swift-friendly.
 * Every function returns -1 and leaves errno set on failure. */

/* The device id of "hciN" (up or down), of another name or address (up adapters only), or of the
 * first adapter that is up when name is NULL. */
static inline int cbluez_device_id(const char *name) {
    if (name == NULL) return hci_get_route(NULL);
    if (strncmp(name, "hci", 3) == 0 && name[3] >= '0' && name[3] <= '9') {
        int id = 0;
        for (const char *p = name + 3; *p; p++) {
            if (*p < '0' || *p > '9' || id > 10000) { errno = ENODEV; return -1; }
            id = id * 10 + (*p - '0');
        }
        return id;
    }
    return hci_devid(name);
}

/* 1 when the adapter is up, 0 when down, -1 on error. */
static inline int cbluez_device_is_up(int dev_id) {
    struct hci_dev_info info;
    memset(&info, 0, sizeof(info));
    if (hci_devinfo(dev_id, &info) < 0) return -1;
    return hci_test_bit(HCI_UP, &info.flags) ? 1 : 0;
}

/* A raw HCI socket bound to the device. */
static inline int cbluez_open_device(int dev_id) {
    return hci_open_dev(dev_id);
}

static inline int cbluez_close_device(int fd) {
    return hci_close_dev(fd);
}

/* The socket's HCI filter, as its three fields. */
static inline int cbluez_read_filter(int fd, uint32_t *type_mask, uint32_t *event_mask0, uint32_t *event_mask1,
                                     uint16_t *opcode) {
    struct hci_filter filter;
    socklen_t length = sizeof(filter);
    memset(&filter, 0, sizeof(filter));
    if (getsockopt(fd, SOL_HCI, HCI_FILTER, &filter, &length) < 0) return -1;
    *type_mask = filter.type_mask;
    *event_mask0 = filter.event_mask[0];
    *event_mask1 = filter.event_mask[1];
    *opcode = filter.opcode;
    return 0;
}

static inline int cbluez_write_filter(int fd, uint32_t type_mask, uint32_t event_mask0, uint32_t event_mask1,
                                      uint16_t opcode) {
    struct hci_filter filter;
    memset(&filter, 0, sizeof(filter));
    filter.type_mask = type_mask;
    filter.event_mask[0] = event_mask0;
    filter.event_mask[1] = event_mask1;
    filter.opcode = opcode;
    return setsockopt(fd, SOL_HCI, HCI_FILTER, &filter, sizeof(filter));
}

/* The adapters the kernel knows, up or down: up to capacity ids, and whether each is up (1) or down (0).
 * Returns how many there are. */
static inline int cbluez_list_devices(uint16_t *ids, uint8_t *up, int capacity) {
    int sock = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    if (sock < 0) return -1;
    struct hci_dev_list_req *list = calloc(1, sizeof(*list) + HCI_MAX_DEV * sizeof(struct hci_dev_req));
    if (list == NULL) { close(sock); errno = ENOMEM; return -1; }
    list->dev_num = HCI_MAX_DEV;
    if (ioctl(sock, HCIGETDEVLIST, list) < 0) {
        int error = errno;
        free(list);
        close(sock);
        errno = error;
        return -1;
    }
    close(sock);
    int count = list->dev_num;
    for (int i = 0; i < count && i < capacity; i++) {
        ids[i] = list->dev_req[i].dev_id;
        up[i] = hci_test_bit(HCI_UP, &list->dev_req[i].dev_opt) ? 1 : 0;
    }
    free(list);
    return count;
}

static inline int cbluez_errno(void) { return errno; }

#endif
