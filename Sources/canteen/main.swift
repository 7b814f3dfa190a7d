print("canteen")
