// CanteenFormat
