// BlueZScanner
