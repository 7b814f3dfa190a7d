import Foundation

extension CafeDocument {
    // MARK: - Menu

    static func readMenu(_ reader: inout JSONObjectReader, cafe: Cafe?) -> Menu? {
        let problems = reader.problems
        let before = problems.all.count
        let languages = cafe?.languages
        let currency = cafe?.currency

        var dayParts: [DayPart] = []
        var dayPartIDs: Set<String> = []
        for (path, value) in reader.elements("dayParts", required: false) {
            guard var part = JSONObjectReader(value, path: path, problems: problems) else { continue }
            let id = readIdentifier(&part, "id")
            let names = readText(&part, "names", languages: languages)
            let start = readTime(&part, "start")
            let end = readTime(&part, "end")
            part.finish()
            guard let id, let names, let start, let end else { continue }
            if !dayPartIDs.insert(id).inserted {
                problems.add(part.childPath("id"), "duplicate day part id '\(id)'", code: .duplicateId)
            }
            guard start < end else {
                problems.add(path, "ends at \(end), not after it starts at \(start)")
                continue
            }
            let dayPart = DayPart(id: id, names: names, start: start, end: end)
            if let cafe, !cafe.hours.values.contains(where: { $0.contains { $0.contains(dayPart.range) } }) {
                problems.add(
                    path, "\(start)–\(end) is outside the opening hours of every day",
                    code: .dayPartOutsideHours)
            }
            dayParts.append(dayPart)
        }

        var categories: [MenuCategory] = []
        var categoryIDs: Set<String> = []
        for (path, value) in reader.elements("categories") {
            guard var category = JSONObjectReader(value, path: path, problems: problems) else { continue }
            let id = readIdentifier(&category, "id")
            let names = readText(&category, "names", languages: languages)
            category.finish()
            guard let id, let names else { continue }
            if !categoryIDs.insert(id).inserted {
                problems.add(category.childPath("id"), "duplicate category id '\(id)'", code: .duplicateId)
            }
            categories.append(MenuCategory(id: id, names: names))
        }

        var items: [MenuItem] = []
        var itemIDs: Set<String> = []
        for (path, value) in reader.elements("items") {
            guard var item = JSONObjectReader(value, path: path, problems: problems) else { continue }
            let id = readIdentifier(&item, "id")
            if let id, !itemIDs.insert(id).inserted {
                problems.add(item.childPath("id"), "duplicate item id '\(id)'", code: .duplicateId)
            }
            let category = item.string("category")
            if let category, !categoryIDs.contains(category) {
                problems.add(item.childPath("category"), "no category with id '\(category)'", code: .unknownReference)
            }
            let names = readText(&item, "names", languages: languages)
            let descriptions = readText(&item, "descriptions", languages: languages, kind: .freeText)
            let price = readMinorUnits(&item, "price", currency: currency, allowNegative: false)
            let station = readIdentifier(&item, "station")
            let allergens = readStrings(&item, "allergens", required: true)
            let parts = readStrings(&item, "dayParts", required: false) ?? []
            for (index, part) in parts.enumerated() where !dayPartIDs.contains(part) {
                problems.add(
                    "\(item.childPath("dayParts"))[\(index)]", "no day part with id '\(part)'", code: .unknownReference)
            }
            let groups = readModifierGroups(&item, languages: languages, currency: currency)
            let prepSeconds = KitchenSettings.prepSeconds
            let prep = item.integer(
                "prepSeconds", required: false,
                in: Int64(prepSeconds.lowerBound)...Int64(prepSeconds.upperBound))
            let quantity = item.integer("dailyQuantity", required: false, in: DailyStock.quantityRange)
            item.finish()
            guard let id, let category, let names, let descriptions, let price, let station, let allergens,
                let groups
            else { continue }
            items.append(
                MenuItem(
                    id: id, category: category, names: names, descriptions: descriptions,
                    price: price, station: station, allergens: allergens, dayParts: parts,
                    modifierGroups: groups, prepSeconds: prep.map(Int.init),
                    dailyQuantity: quantity.map(Int.init)))
        }
        guard problems.all.count == before else { return nil }
        return Menu(dayParts: dayParts, categories: categories, items: items)
    }

    private static func readModifierGroups(
        _ reader: inout JSONObjectReader, languages: [String]?,
        currency: Currency?
    ) -> [ModifierGroup]? {
        var groups: [ModifierGroup] = []
        var ids: Set<String> = []
        var failed = false
        for (path, value) in reader.elements("modifierGroups", required: false) {
            guard var group = JSONObjectReader(value, path: path, problems: reader.problems) else {
                failed = true; continue
            }
            let id = readIdentifier(&group, "id")
            if let id, !ids.insert(id).inserted {
                reader.problems.add(group.childPath("id"), "duplicate modifier group id '\(id)'", code: .duplicateId)
                failed = true
            }
            let names = readText(&group, "names", languages: languages)
            let min = group.integer("min", in: 0...99)
            let max = group.integer("max", in: 1...99)
            var options: [ModifierOption] = []
            var optionIDs: Set<String> = []
            for (optionPath, optionValue) in group.elements("options") {
                guard var option = JSONObjectReader(optionValue, path: optionPath, problems: reader.problems) else {
                    failed = true
                    continue
                }
                let optionID = readIdentifier(&option, "id")
                if let optionID, !optionIDs.insert(optionID).inserted {
                    reader.problems.add(option.childPath("id"), "duplicate option id '\(optionID)'", code: .duplicateId)
                    failed = true
                }
                let optionNames = readText(&option, "names", languages: languages)
                let delta = readMinorUnits(&option, "priceDelta", currency: currency, allowNegative: true)
                option.finish()
                guard let optionID, let optionNames, let delta else { failed = true; continue }
                options.append(ModifierOption(id: optionID, names: optionNames, priceDelta: delta))
            }
            group.finish()
            if let min, let max, min > max {
                reader.problems.add(
                    group.childPath("min"), "min \(min) is greater than max \(max)", code: .minExceedsMax)
                failed = true
            }
            if let min, min > options.count {
                reader.problems.add(
                    group.childPath("min"), "min \(min) is more than the \(options.count) options offered")
                failed = true
            }
            guard let id, let names, let min, let max else { failed = true; continue }
            groups.append(ModifierGroup(id: id, names: names, min: Int(min), max: Int(max), options: options))
        }
        return failed ? nil : groups
    }
}
