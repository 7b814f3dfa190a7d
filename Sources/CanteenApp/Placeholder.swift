// CanteenApp
