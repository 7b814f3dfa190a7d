// Beacons
