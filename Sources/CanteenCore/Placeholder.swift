// CanteenCore
