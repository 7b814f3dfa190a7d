extension Currency {
    /// Active ISO 4217 codes (list one, as published by the maintenance agency in 2025) with
    /// their minor-unit exponent. Codes without minor units (precious metals, SDR, testing and
    /// bond-market units such as XAU, XDR, XTS, XXX) are not money a café can charge and are left out.
    static let iso4217: [String: Int] = {
        var table: [String: Int] = [:]
        let twoDigits = """
            AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP \
            BYN BZD CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD \
            FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD \
            KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD \
            NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP \
            SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED \
            VES WST XCD XCG YER ZAR ZMW ZWG
            """
        let zeroDigits = "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF"
        let threeDigits = "BHD IQD JOD KWD LYD OMR TND"
        let fourDigits = "CLF UYW"
        for (list, exponent) in [(twoDigits, 2), (zeroDigits, 0), (threeDigits, 3), (fourDigits, 4)] {
            for code in list.split(separator: " ") { table[String(code)] = exponent }
        }
        return table
    }()
}
