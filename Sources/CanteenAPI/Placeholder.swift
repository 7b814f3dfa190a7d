// CanteenAPI
