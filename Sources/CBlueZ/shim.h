#ifndef CANTEEN_CBLUEZ_SHIM_H
#define CANTEEN_CBLUEZ_SHIM_H

#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

#endif
