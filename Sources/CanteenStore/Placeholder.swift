// CanteenStore
